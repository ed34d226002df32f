// Hand-record downloads: the page fetches the export with its seat token and saves it (no token to paste).

const $ = (id) => document.getElementById(id);

const FORMATS = { pbn: "application/x-chess-pbn", lin: "text/plain" };

/** Fetch ``export.FORMAT`` of a table (one deal when ``dealNo`` is given) with ``token`` and save it as a file. */
export async function downloadRecord(tableId, token, format, dealNo = null) {
  const query = dealNo === null ? "" : `?deal=${encodeURIComponent(dealNo)}`;
  const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/export.${format}${query}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`the server would not give the hand record (${response.status})`);
  const blob = new Blob([await response.text()], { type: FORMATS[format] });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `tribridge-${tableId}${dealNo === null ? "" : `-deal-${dealNo}`}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** Wire the download buttons: ``current()`` gives {tableId, token, dealNo} or null; ``fail(err)`` reports. */
export function initDownloads(current, fail) {
  for (const button of document.querySelectorAll("button[data-download]")) {
    button.addEventListener("click", async () => {
      const at = current();
      if (!at) return;
      const [format, scope] = button.dataset.download.split(":");
      try {
        await downloadRecord(at.tableId, at.token, format, scope === "deal" ? at.dealNo : null);
      } catch (err) {
        fail(err);
      }
    });
  }
  $("downloads").hidden = false;
}

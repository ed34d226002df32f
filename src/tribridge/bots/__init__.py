"""Bots that bid and play: belief sampling, PIMC card play, bidders."""

"""The league's web site: live standings, head-to-head, bot pages, game viewer, static export."""

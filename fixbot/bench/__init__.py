"""`fixbot bench`: how often fixbot fixes real failures, at what cost, measured on a corpus."""

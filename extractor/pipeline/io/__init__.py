"""Reading: inputs expanded and planned, their bytes (compression, ranges, object storage) and their text (encodings, kinds, binary data)."""

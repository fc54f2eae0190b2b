"""The result: part files and markers, the bucket merge, Parquet writing, publication, the output folder, and the summary read back."""

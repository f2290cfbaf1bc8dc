// Layer sim: keeps the library target non-empty while the layer has only headers.

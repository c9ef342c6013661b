"""The rules of every game, free of I/O and protobuf."""

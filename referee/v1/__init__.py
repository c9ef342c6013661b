"""Generated protobuf and gRPC code for referee.v1 (scripts/generate.sh; do not edit)."""

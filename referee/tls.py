"""TLS and mutual TLS for the gRPC port: files checked at start-up, credentials per worker."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc


class TlsError(ValueError):
    """TLS files that cannot be used (the message names the file, never key material)."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """PEM files: the server's certificate chain and key, and optionally the CA
    bundle that client certificates must chain to (mutual TLS)."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    def check(self) -> None:
        """Fail early with a clear message: unreadable files, a key that does not match
        the certificate, a CA bundle without certificates."""
        for what, path in (("certificate", self.cert), ("key", self.key)):
            _readable(what, path)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(self.cert, self.key)
        except ssl.SSLError as e:
            raise TlsError(
                f"{self.cert} and {self.key} are not a PEM certificate chain and its "
                f"private key ({e.reason or e})"
            ) from None
        if self.client_ca is not None:
            _readable("client CA", self.client_ca)
            try:
                context.load_verify_locations(cafile=self.client_ca)
            except ssl.SSLError as e:
                raise TlsError(
                    f"{self.client_ca} is not a PEM CA bundle ({e.reason or e})"
                ) from None
            if not context.get_ca_certs():
                raise TlsError(f"{self.client_ca} holds no CA certificate")

    def credentials(self) -> grpc.ServerCredentials:
        """Server credentials (client certificates required with a client CA)."""
        ca = self.client_ca.read_bytes() if self.client_ca is not None else None
        return grpc.ssl_server_credentials(
            [(self.key.read_bytes(), self.cert.read_bytes())],
            root_certificates=ca,
            require_client_auth=ca is not None,
        )


def _readable(what: str, path: Path) -> None:
    try:
        with path.open("rb") as f:
            f.read(1)
    except OSError as e:
        raise TlsError(f"TLS {what} {path}: {e.strerror or e}") from None

"""TLS and mutual TLS for the gRPC port: files checked at start-up, credentials per
worker, certificates reloaded when their files change (checked at each new connection)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from referee.logs import get_logger


class TlsError(ValueError):
    """TLS files that cannot be used (the message names the file, never key material)."""


@dataclass(frozen=True, slots=True)
class Pem:
    """The contents of the TLS files, read together."""

    cert: bytes
    key: bytes
    client_ca: bytes | None


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
        self.validate(self.read())

    def read(self) -> Pem:
        return Pem(
            _read("certificate", self.cert),
            _read("key", self.key),
            _read("client CA", self.client_ca) if self.client_ca is not None else None,
        )

    def validate(self, pem: Pem) -> datetime.datetime:
        """Check the files' contents; returns when the certificate expires."""
        try:
            chain = x509.load_pem_x509_certificates(pem.cert)
        except ValueError:
            raise TlsError(f"{self.cert} holds no PEM certificate") from None
        try:
            key = serialization.load_pem_private_key(pem.key, password=None)
        except (ValueError, TypeError):
            raise TlsError(
                f"{self.key} is not a PEM private key (unencrypted) of {self.cert}"
            ) from None
        if _public(chain[0].public_key()) != _public(key.public_key()):
            raise TlsError(
                f"{self.cert} and {self.key} are not a PEM certificate chain and its "
                "private key (the key is another certificate's)"
            )
        if pem.client_ca is not None:
            try:
                x509.load_pem_x509_certificates(pem.client_ca)
            except ValueError:
                raise TlsError(f"{self.client_ca} holds no CA certificate") from None
        return chain[0].not_valid_after_utc

    def credentials(self) -> grpc.ServerCredentials:
        """Server credentials that follow the files (client certificates required with a
        client CA). Before each new connection's handshake, gRPC asks for the current
        certificates: the files are read again and, when they have changed and are a
        valid certificate and key, the new ones serve from that handshake on.
        Connections already open keep theirs. Files that cannot be used are refused
        (logged once, as ``tls_reload_refused``) and the last good ones keep serving."""
        pem = self.read()
        self.validate(pem)
        return grpc.dynamic_ssl_server_credentials(
            _configuration(pem),
            # The stubs say the fetcher returns a configuration; gRPC documents None as
            # "keep the current one".
            _Reloader(self, pem),  # type: ignore[arg-type]
            require_client_authentication=self.client_ca is not None,
        )


class _Reloader:
    """The certificate configuration fetcher of :meth:`TlsFiles.credentials`, called by
    gRPC before every new connection's handshake: the new configuration, or None to
    keep the current one. Never raises: a failure keeps the current certificates."""

    def __init__(self, files: TlsFiles, pem: Pem) -> None:
        self.files = files
        self.current = pem
        self.refused: Pem | str | None = None  # the last refusal, logged once
        self.log = get_logger("referee.tls").bind()  # the configuration of its server's start

    def __call__(self) -> grpc.ServerCertificateConfiguration | None:
        try:
            return self._fetch()
        except Exception as e:  # the handshake must go on with the current certificates
            self._refuse(f"unexpected {type(e).__name__}", e)
            return None

    def _fetch(self) -> grpc.ServerCertificateConfiguration | None:
        try:
            pem = self.files.read()
        except TlsError as e:
            self._refuse(str(e), e)
            return None
        if pem == self.current or pem == self.refused:
            return None
        try:
            not_after = self.files.validate(pem)
        except TlsError as e:
            self._refuse(pem, e)
            return None
        self.current = pem
        self.refused = None
        self.log.info(
            "tls_reloaded",
            cert=str(self.files.cert),
            client_ca=str(self.files.client_ca) if self.files.client_ca else None,
            not_after=not_after.isoformat(),
        )
        return _configuration(pem)

    def _refuse(self, what: Pem | str, error: Exception) -> None:
        if what != self.refused:
            self.refused = what
            self.log.warning("tls_reload_refused", error=str(error), serving="the last good files")


def _configuration(pem: Pem) -> grpc.ServerCertificateConfiguration:
    return grpc.ssl_server_certificate_configuration(
        [(pem.key, pem.cert)], root_certificates=pem.client_ca
    )


def _public(key: Any) -> bytes:
    return key.public_bytes(  # type: ignore[no-any-return]
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _read(what: str, path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise TlsError(f"TLS {what} {path}: {e.strerror or e}") from None

"""Private keys in the operating system's credential store, never in a file: through `keyring`.

On Windows that is Credential Manager (the user's credentials, protected by DPAPI); on a Linux
desktop the Secret Service. A Linux server has neither, so there the keys go to the kernel's key
store (the user's keyring, `add_key(2)`/`keyctl(2)`): file-less, the user's alone, kept until
the machine restarts. `KeyStore.where` names the store in use, and the agent and the controller
say it when they start.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from typing import Any

import keyring
import keyring.backend
import keyring.errors
from jaraco.classes.properties import classproperty
from keyring.backends import fail

SERVICE = "Jetwise"
_SYSCALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl
_USER_KEYRING = -4  # KEY_SPEC_USER_KEYRING
_SEARCH, _READ, _UNLINK, _REVOKE = 10, 11, 9, 3


class KeyStoreError(RuntimeError):
    """No credential store can keep a key here, or it refused: what to do, in words."""


class KernelKeyring(keyring.backend.KeyringBackend):
    """The Linux kernel's key store, the user's keyring: a key never touches a file."""

    @classmethod
    def syscalls(cls) -> tuple[Any, int, int] | None:
        numbers = _SYSCALLS.get(platform.machine())
        if sys.platform != "linux" or numbers is None:
            return None
        return ctypes.CDLL(None, use_errno=True), *numbers

    @classproperty
    def priority(cls) -> float:  # noqa: N805 - keyring's own class property
        if cls.syscalls() is None:
            raise RuntimeError("the kernel key store is Linux's")  # keyring's way to say: not here
        return 0.5  # below the Secret Service: the store only where no desktop keyring runs

    def _found(self, service: str, username: str) -> int | None:
        found = self.syscalls()
        assert found is not None
        libc, _add, keyctl = found
        key = libc.syscall(keyctl, _SEARCH, _USER_KEYRING, b"user", f"{service}:{username}".encode(), 0)
        return key if key >= 0 else None

    def get_password(self, service: str, username: str) -> str | None:
        found = self.syscalls()
        key = self._found(service, username)
        if found is None or key is None:
            return None
        libc, _add, keyctl = found
        size = libc.syscall(keyctl, _READ, key, None, 0)
        buffer = ctypes.create_string_buffer(max(size, 1))
        read = libc.syscall(keyctl, _READ, key, buffer, size)
        return buffer.raw[:read].decode() if read >= 0 else None

    def set_password(self, service: str, username: str, password: str) -> None:
        found = self.syscalls()
        assert found is not None
        libc, add_key, _keyctl = found
        payload = password.encode()
        if libc.syscall(add_key, b"user", f"{service}:{username}".encode(), payload, len(payload), _USER_KEYRING) < 0:
            raise keyring.errors.PasswordSetError(f"the kernel key store refused it: {os.strerror(ctypes.get_errno())}")

    def delete_password(self, service: str, username: str) -> None:
        found = self.syscalls()
        key = self._found(service, username)
        if found is None or key is None:
            raise keyring.errors.PasswordDeleteError("no such key")
        libc, _add, keyctl = found
        libc.syscall(keyctl, _REVOKE, key)
        libc.syscall(keyctl, _UNLINK, key, _USER_KEYRING)


def _backend() -> keyring.backend.KeyringBackend:
    backend = keyring.get_keyring()
    if not isinstance(backend, fail.Keyring):
        return backend
    if KernelKeyring.syscalls() is not None:
        return KernelKeyring()  # type: ignore[no-untyped-call]
    raise KeyStoreError("this machine has no credential store Jetwise can keep a private key in (no Windows Credential "
                        "Manager, Secret Service or kernel key store): a key is never written to a file")


def _name(backend: keyring.backend.KeyringBackend) -> str:
    if isinstance(backend, KernelKeyring):
        return "the Linux kernel key store (the user's keyring)"
    module = type(backend).__module__
    if module.endswith("Windows"):
        return "Windows Credential Manager"
    if module.endswith("SecretService") or module.endswith("libsecret"):
        return "the Secret Service"
    return f"the {getattr(backend, 'name', type(backend).__name__)} keyring"


class KeyStore:
    """The private keys of one party (`service`): put, got and removed by name."""

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service
        self.backend = _backend()

    @property
    def where(self) -> str:
        """The store in use, as the engineer is told."""
        return _name(self.backend)

    def put(self, name: str, pem: str) -> None:
        try:
            self.backend.set_password(self.service, name, pem)
        except keyring.errors.KeyringError as exc:
            raise KeyStoreError(f"{self.where} did not keep the key {name}: {exc}") from exc

    def get(self, name: str) -> str | None:
        try:
            return self.backend.get_password(self.service, name)
        except keyring.errors.KeyringError as exc:
            raise KeyStoreError(f"{self.where} did not give the key {name}: {exc}") from exc

    def remove(self, name: str) -> None:
        try:
            self.backend.delete_password(self.service, name)
        except keyring.errors.PasswordDeleteError:
            pass  # already gone

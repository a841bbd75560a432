"""A test across servers: its authority, a host's enrolment by a one-time bundle and code, removal, and the keys kept in
the credential store and in no file."""

from __future__ import annotations

import io
import json
import os
import ssl
import stat
import sys

import pytest

from app.cli import run_cli
from engine.hosts.controller import not_answered
from engine.hosts.enrolment import EnrolmentError, one_time_code
from engine.hosts.keys import KeyStoreError
from engine.hosts.link import Certified, der_of
from engine.hosts.membership import AGENT_FILE, enrol, membership_in
from engine.hosts.roster import KEYS, ROSTER_FILE, Roster, RosterError
from engine.hosts.tls import context
from engine.hosts.trust import issue, key_request, new_authority, same_key
from engine.io.config_file import save_config
from engine.protocol import ExitCode
from tests.cli.test_bad_input import good_config


def _no_key_in(folder, *keys_pem: str) -> None:
    """No file under `folder` holds any of the private keys (their PEM bodies)."""
    bodies = ["".join(pem.strip().splitlines()[1:-1])[:60] for pem in keys_pem]
    for path in folder.rglob("*"):
        if path.is_file():
            text = "".join(path.read_text(errors="replace").split())
            assert not any(body in text for body in bodies), f"a private key in {path}"
            assert "PRIVATE KEY" not in path.read_text(errors="replace"), path


def test_a_host_enrols_with_its_bundle_and_code_and_keeps_its_key_in_the_credential_store_alone(tmp_path, keys):
    roster = Roster(tmp_path / "controller" / "hosts", keys)
    (tmp_path / "share").mkdir()
    enrolled = roster.add("mbx1.contoso.com", "tls://ctl.contoso.com:8786", tmp_path / "share")
    assert enrolled.bundle.name == "mbx1.contoso.com.jwenrol" and len(enrolled.code) == 19
    assert enrolled.code not in enrolled.bundle.read_text()  # the code is shown, never written

    with pytest.raises(EnrolmentError, match="the code does not open this bundle"):
        enrol(enrolled.bundle, one_time_code(), tmp_path / "agent", keys)
    assert enrolled.bundle.exists() and membership_in(tmp_path / "agent") is None  # a wrong code changes nothing

    typed = enrolled.code.lower().replace("-", " ")  # as an engineer may type it
    membership = enrol(enrolled.bundle, typed, tmp_path / "agent", keys)
    assert not enrolled.bundle.exists()  # deleted once its key is in the credential store
    assert (membership.host, membership.controller) == ("mbx1.contoso.com", "tls://ctl.contoso.com:8786")
    assert membership.controller_pem == roster.file.controller_pem and not membership.redeemed  # the controller pinned
    identity = membership.identity(keys)
    subject = identity.certificate.subject.rfc4514_string()
    assert identity.fingerprint == enrolled.fingerprint and "CN=mbx1.contoso.com" in subject and "OU=agent" in subject
    assert membership_in(tmp_path / "agent") == membership and (tmp_path / "agent" / AGENT_FILE).exists()
    _no_key_in(tmp_path, identity.key_pem, roster.authority.key_pem, roster.controller.key_pem)

    again = Roster(tmp_path / "controller" / "hosts", keys)  # the controller, started again, keeps its authority
    assert again.authority_fingerprint == roster.authority_fingerprint and [h.name for h in again.hosts()] == [
        "mbx1.contoso.com"]


def test_a_bundle_is_written_over_only_when_it_is_jetwises(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    mine = tmp_path / "mbx1.jwenrol"
    mine.write_text("the engineer's own notes")
    with pytest.raises(RosterError, match="exists and is not a Jetwise enrolment bundle"):
        roster.add("mbx1", "tls://ctl:8786", tmp_path)
    assert mine.read_text() == "the engineer's own notes" and roster.hosts() == []
    mine.unlink()
    first = roster.add("mbx1", "tls://ctl:8786", tmp_path)
    again = roster.add("mbx1", "tls://ctl:8786", tmp_path)  # its own bundle, written again with a new code
    assert first.bundle == again.bundle and first.code != again.code
    assert enrol(again.bundle, again.code, tmp_path / "agent", keys).host == "mbx1"


def test_the_controller_answers_only_the_certificate_each_host_is_enrolled_with_now(tmp_path, keys):
    """A removed host's certificate, a host's replaced one, a redeemed bundle's, another role's and an unknown host's
    are each refused, saying why; the current one of each host enrolled is answered."""
    roster = Roster(tmp_path / "hosts", keys)
    first = roster.add("mbx1", "tls://ctl:8786", tmp_path)
    old = roster.hosts()[0].cert_pem
    roster.add("mbx2", "tls://ctl:8786", tmp_path)
    renewed = roster.add("mbx1", "tls://ctl:8786", tmp_path)  # enrolled again: its old certificate is refused
    assert [h.name for h in roster.hosts()] == ["mbx2", "mbx1"] and renewed.fingerprint != first.fingerprint
    mbx2 = roster.hosts()[0].cert_pem
    roster.remove("mbx2")
    with pytest.raises(RosterError, match="mbx2 is not enrolled; enrolled: mbx1"):
        roster.remove("mbx2")
    saved = json.loads((tmp_path / "hosts" / ROSTER_FILE).read_text())
    assert [h["removed_utc"] is not None for h in saved["hosts"]] == [True, True, False]

    def why(cert_pem: str, role: str = "agent", host: str = "mbx1") -> str | None:
        return not_answered(roster, Certified(role, host, der_of(cert_pem)))

    bundle = roster.hosts()[-1].cert_pem
    assert why(bundle) is None
    assert "a replaced certificate of mbx1" in (why(old) or "")
    assert "a removed host's certificate: its host was removed" in (why(mbx2, host="mbx2") or "")
    assert "not to an agent" in (why(roster.file.controller_pem, "controller", "controller") or "")
    assert "which this controller has not enrolled" in (why(bundle, host="mbx9") or "")
    assert not_answered(roster, None) == "no certificate"
    request, key = key_request("mbx1")  # its bundle redeemed: the key made there is answered, the bundle's no more
    own = roster.redeem("mbx1", request, "tls://10.0.0.1:50000")
    assert same_key(own, key) and why(own) is None
    assert "redeemed already" in (why(bundle) or "") and "from tls://10.0.0.1:50000" in (why(bundle) or "")


def test_a_context_accepts_only_its_authoritys_certificates(tmp_path):
    authority, other = new_authority("a"), new_authority("b")
    controller = issue(authority, "controller", "controller")
    member, stranger = issue(authority, "mbx1", "agent"), issue(other, "x", "agent")
    server = context(ssl.Purpose.CLIENT_AUTH, authority.cert_pem, controller)
    outcomes = {}
    for name, identity, trusts in (("member", member, authority), ("stranger", stranger, other)):
        client = context(ssl.Purpose.SERVER_AUTH, trusts.cert_pem, identity)
        outcomes[name] = _handshake(server, client)
    assert outcomes["member"] == "ok"
    assert outcomes["stranger"] != "ok"


def _handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> str:
    """Both sides of a TLS handshake in memory: "ok", or the first error either side met."""
    c_in, c_out, s_in, s_out = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
    c = client.wrap_bio(c_in, c_out, server_side=False)
    s = server.wrap_bio(s_in, s_out, server_side=True)
    done = {"c": False, "s": False}
    for _ in range(20):
        for name, side in (("c", c), ("s", s)):
            if not done[name]:
                try:
                    side.do_handshake()
                    done[name] = True
                except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                    pass
                except ssl.SSLError as exc:
                    return _why(exc)
            s_in.write(c_out.read())
            c_in.write(s_out.read())
        if all(done.values()):
            try:  # TLS 1.3: a refused client certificate arrives after the client's handshake
                s.write(b"x")
                c_in.write(s_out.read())
                c.read(1)
            except ssl.SSLError as exc:
                return _why(exc)
            return "ok"
    return "no handshake"


def _why(exc: ssl.SSLError) -> str:
    return f"{exc.reason} {getattr(exc, 'verify_message', '')}".lower().replace("_", " ")


@pytest.mark.parametrize("host", ["../x", "/no-such-folder/x", "", "mbx1.", "x_y", "999.1.1.1", "a" * 64])
def test_a_host_is_a_host_name_or_address_never_a_path(tmp_path, keys, host):
    roster = Roster(tmp_path / "hosts", keys)
    (tmp_path / "share").mkdir()
    with pytest.raises(RosterError, match=r"is not a host name or address \(.*\): give an RFC 1123 host name"):
        roster.add(host, "tls://ctl:8786", tmp_path / "share")
    assert roster.hosts() == [] and not any(tmp_path.rglob("*.jwenrol"))


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits; on Windows a bundle takes its folder's access list")
def test_a_bundle_is_readable_by_its_owner_alone_written_new_or_again(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    before = os.umask(0)  # whatever the umask lets through, a bundle is rw-------
    try:
        added = roster.add("fd00::21", "tls://ctl:8786", tmp_path)
        assert added.bundle.name == "fd00--21.jwenrol"  # no colon: Windows takes none in a file name
        assert stat.S_IMODE(added.bundle.stat().st_mode) == 0o600
        added.bundle.chmod(0o644)
        again = roster.add("fd00::21", "tls://ctl:8786", tmp_path)  # written again over its own bundle
        assert again.bundle == added.bundle and stat.S_IMODE(again.bundle.stat().st_mode) == 0o600
    finally:
        os.umask(before)
    assert enrol(again.bundle, again.code, tmp_path / "agent", keys).host == "fd00::21"


def test_a_controller_that_lost_its_keys_is_reset_and_enrols_again(tmp_path, keys, monkeypatch, capsys):
    data = tmp_path / "controller"
    monkeypatch.setenv("JETWISE_DATA_DIR", str(data))
    roster = Roster(data / "hosts", keys)
    for host in ("mbx1", "mbx2"):
        roster.add(host, "tls://ctl:8786", tmp_path)
    old = roster.authority_fingerprint
    for what in KEYS:  # as the Linux kernel's key store forgets them when the controller restarts
        keys.remove(roster.key_name(what))
    with pytest.raises(KeyStoreError, match="start this controller's authority anew with jetwise hosts reset"):
        roster.add("mbx3", "tls://ctl:8786", tmp_path)

    assert run_cli(["hosts", "reset"]) == ExitCode.INVALID  # no console to confirm it in, and no --yes
    assert "give --yes to reset" in capsys.readouterr().err and Roster.file_in(data / "hosts") is not None
    monkeypatch.setattr(sys, "stdin", _Console("n\n"))
    assert run_cli(["hosts", "reset"]) == ExitCode.ABORTED
    assert "Nothing was reset." in capsys.readouterr().out and Roster.file_in(data / "hosts") is not None

    monkeypatch.setattr(sys, "stdin", _Console("y\n"))
    assert run_cli(["hosts", "reset"]) == ExitCode.PASS
    said = capsys.readouterr().out
    assert f"Removed the authority {old} and its keys, and 2 enrolled server(s): mbx1, mbx2." in said
    assert Roster.file_in(data / "hosts") is None
    assert run_cli(["hosts", "reset", "--yes"]) == ExitCode.PASS  # nothing left to reset
    assert "Nothing to reset" in capsys.readouterr().out

    assert run_cli(["hosts", "add", "mbx1", "--folder", str(tmp_path)]) == ExitCode.PASS
    renewed = Roster(data / "hosts", keys)
    assert renewed.authority_fingerprint != old and [h.name for h in renewed.hosts()] == ["mbx1"]
    assert renewed.controller.key_pem  # the new authority's keys are in the store
    assert run_cli(["hosts", "reset", "--yes"]) == ExitCode.PASS  # with --yes, without asking
    assert keys.get(renewed.key_name("authority")) is None and keys.get(renewed.key_name("controller")) is None


def test_a_test_across_a_server_not_enrolled_is_refused_naming_the_flag(tmp_path, keys, monkeypatch, capsys):
    data = tmp_path / "controller"
    monkeypatch.setenv("JETWISE_DATA_DIR", str(data))
    Roster(data / "hosts", keys).add("mbx1", "tls://ctl:8786", tmp_path)
    config = tmp_path / "dag.json"
    save_config(good_config(tmp_path), config)
    assert run_cli(["run", str(config), "--hosts", "mbx1,mbx9", "--output", str(tmp_path / "run")]) == ExitCode.INVALID
    assert "error: --hosts: mbx9 not enrolled (enrolled: mbx1); jetwise hosts add HOST" in capsys.readouterr().err


class _Console(io.StringIO):
    """A console the engineer answers at."""

    def isatty(self) -> bool:
        return True

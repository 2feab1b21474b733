"""`docmunch setup` and `docmunch doctor` on a temporary home: dry runs, real merges, refusals."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from docmunch.cli import main
from docmunch.index import Index
from docmunch.setup import CLIENTS, client_by_name, server_command
from docmunch.setup.jsonc import loads

EXE, ARGS = server_command()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake user home (HOME), its own data folder, and no XDG/APPDATA leaking in from outside."""
    fake = tmp_path / "user"
    fake.mkdir()
    monkeypatch.setenv("HOME", str(fake))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.setenv("DOCMUNCH_HOME", str(tmp_path / "data"))
    return fake


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_dry_run_for_every_client_writes_nothing(home: Path, tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "setup", *(c.name for c in CLIENTS), "--dry-run")
    assert code == 0, err
    assert files_under(home) == []
    expected = {
        "claude-code": home / ".claude.json",
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
        "cursor": home / ".cursor" / "mcp.json",
        "vscode": home / ".config" / "Code" / "User" / "mcp.json",
    }
    for name, path in expected.items():
        assert f"{name}: would create {path}" in out
    assert out.count(f"runs {EXE} serve") == 4
    assert out.count(f"env DOCMUNCH_HOME={tmp_path / 'data'}") == 4
    assert out.count("+++ ") == 4 and '+    "docmunch": {' in out
    assert '+  "servers": {' in out and out.count('+  "mcpServers": {') == 3
    assert out.count('"type": "stdio"') == 2  # Claude Code and VS Code want it

    code, out, _ = run(capsys, "setup", "vscode", "--dry-run", "--json")
    (result,) = json.loads(out)["results"]
    assert result["action"] == "create" and result["dry_run"] and result["backup"] is None
    assert result["entry"] == {
        "type": "stdio", "command": EXE, "args": ARGS, "env": {"DOCMUNCH_HOME": str(tmp_path / "data")},
    }  # fmt: skip
    assert result["diff"].startswith("--- /dev/null")
    assert files_under(home) == []


CLAUDE_JSON = """{
  "numStartups": 41,
  "projects": {"/work/x": {"mcpServers": {"local": {"command": "y"}}}},
  "mcpServers": {
    "playwright": {
      "command": "npx",
      "args": ["@playwright/mcp@latest"]
    }
  },
  "tipsHistory": {"shift-enter": 27}
}
"""

VSCODE_JSONC = """// user MCP servers
{
\t"servers": {
\t\t/* the GitHub one */
\t\t"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}, // keep
\t},
\t"inputs": [
\t\t{"type": "promptString", "id": "token", "password": true,},
\t],
}
"""


def test_real_write_merges_into_existing_configs(home: Path, capsys) -> None:
    claude = home / ".claude.json"
    claude.write_text(CLAUDE_JSON, encoding="utf-8")
    claude.chmod(0o600)
    vscode = home / ".config" / "Code" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    vscode.write_text(VSCODE_JSONC, encoding="utf-8")
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_text('{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}, "theme": "dark"}')

    code, out, err = run(capsys, "setup", "claude-code", "vscode", "claude-desktop", "cursor")
    assert code == 0, err
    assert "claude-code: added docmunch to" in out and "cursor: created" in out and "backup" in out

    merged = json.loads(claude.read_text(encoding="utf-8"))
    original = json.loads(CLAUDE_JSON)
    assert merged["mcpServers"]["playwright"] == original["mcpServers"]["playwright"]
    assert {k: v for k, v in merged.items() if k != "mcpServers"} == {
        k: v for k, v in original.items() if k != "mcpServers"
    }
    assert (
        merged["mcpServers"]["docmunch"]["command"] == EXE
        and merged["mcpServers"]["docmunch"]["type"] == "stdio"
    )
    assert stat.S_IMODE(claude.stat().st_mode) == 0o600
    (backup,) = claude.parent.glob(".claude.json.docmunch-*.bak")
    assert backup.read_text(encoding="utf-8") == CLAUDE_JSON

    text = vscode.read_text(encoding="utf-8")
    for kept in ("// user MCP servers", "/* the GitHub one */", "// keep", '"password": true,},'):
        assert kept in text
    assert text.startswith(VSCODE_JSONC.split('\t\t"github"')[0])  # everything before is byte-identical
    value = loads(text)
    assert value["servers"]["github"]["type"] == "http" and value["inputs"][0]["id"] == "token"
    assert value["servers"]["docmunch"]["args"] == ARGS and value["servers"]["docmunch"]["type"] == "stdio"
    assert '\n\t\t"docmunch": {\n\t\t\t"type": "stdio",' in text  # the file's tab indentation

    config = json.loads(desktop.read_text(encoding="utf-8"))
    assert config["theme"] == "dark" and config["mcpServers"]["fs"] == {"command": "npx", "args": ["fs"]}
    assert "type" not in config["mcpServers"]["docmunch"]
    assert json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["docmunch"]["command"] == EXE

    # A second run changes nothing and leaves no new backup.
    before = {p: p.read_bytes() for p in files_under(home)}
    code, out, _ = run(capsys, "setup", "claude-code", "vscode", "claude-desktop", "cursor")
    assert code == 0 and out.count("already set up in") == 4
    assert {p: p.read_bytes() for p in files_under(home)} == before


def test_an_existing_entry_is_updated_and_keeps_the_users_additions(home: Path, capsys) -> None:
    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    old = {"command": "/old/docmunch", "args": ["serve"], "env": {"DOCMUNCH_LOG": "debug"}, "disabled": False}
    cursor.write_text(json.dumps({"mcpServers": {"docmunch": old, "other": {"command": "z"}}}, indent=4))
    code, out, _ = run(capsys, "setup", "cursor")
    assert code == 0 and "updated docmunch in" in out
    entry = json.loads(cursor.read_text())["mcpServers"]["docmunch"]
    assert entry["command"] == EXE and entry["disabled"] is False
    assert entry["env"]["DOCMUNCH_LOG"] == "debug" and "DOCMUNCH_HOME" in entry["env"]
    assert json.loads(cursor.read_text())["mcpServers"]["other"] == {"command": "z"}


@pytest.mark.parametrize(
    "content",
    [
        '{"mcpServers": {"a": {"command": "x",}} /* unterminated',
        '{"mcpServers": {"a": 1}} trailing',
        "[1, 2, 3]",
        '{"mcpServers": ["not", "an", "object"]}',
        b'{"mcpServers": {"\xff": 1}}',
    ],
)
def test_an_unreadable_config_is_refused_and_left_untouched(home: Path, capsys, content: str | bytes) -> None:
    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    data = content.encode() if isinstance(content, str) else content
    cursor.write_bytes(data)
    code, _, err = run(capsys, "setup", "cursor", "claude-code")
    assert code == 1 and err.startswith("docmunch: ") and err.count("\n") == 1
    assert str(cursor) in err
    assert cursor.read_bytes() == data
    assert files_under(home) == [cursor]  # no backup, and claude-code was not written either


def test_project_configs(home: Path, tmp_path: Path, capsys) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert run(capsys, "setup", "claude-code", "cursor", "vscode", "--project", str(project))[0] == 0
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["docmunch"]["command"] == EXE
    assert "docmunch" in json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert "docmunch" in json.loads((project / ".vscode" / "mcp.json").read_text())["servers"]
    code, _, err = run(capsys, "setup", "claude-desktop", "--project", str(project))
    assert code == 1 and "no per-project config" in err


def test_config_paths_per_platform(tmp_path: Path) -> None:
    env = {"HOME": "/h", "APPDATA": "C:/Users/u/AppData/Roaming", "USERPROFILE": "C:/Users/u"}
    desktop, vscode = client_by_name("claude-desktop"), client_by_name("vscode")
    assert desktop.user_config(env, "darwin") == Path(
        "/h/Library/Application Support/Claude/claude_desktop_config.json"
    )
    assert desktop.user_config(env, "win32") == Path(
        "C:/Users/u/AppData/Roaming/Claude/claude_desktop_config.json"
    )
    assert desktop.user_config(env, "linux") == Path("/h/.config/Claude/claude_desktop_config.json")
    assert vscode.user_config({**env, "XDG_CONFIG_HOME": "/x"}, "linux") == Path("/x/Code/User/mcp.json")
    assert vscode.user_config(env, "darwin") == Path("/h/Library/Application Support/Code/User/mcp.json")
    assert client_by_name("claude-code").user_config({"USERPROFILE": "C:/Users/u"}, "win32") == Path(
        "C:/Users/u/.claude.json"
    )
    assert client_by_name("cursor").user_config(env, "win32") == Path("/h/.cursor/mcp.json")
    assert Path(EXE).is_absolute() and os.access(EXE, os.X_OK)
    assert Path(EXE).parent == Path(sys.executable).parent  # the script of this very install


def test_doctor_reports_and_exits_by_severity(home: Path, tmp_path: Path, fixtures_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "doctor", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    by = {c["check"]: c for c in report["checks"]}
    assert by["index"]["status"] == "info" and "docmunch index" in by["index"]["fix"]
    assert all(by[f"client {c.name}"]["status"] == "info" for c in CLIENTS)

    with Index.open() as index:
        index.index_path(fixtures_dir / "corpora" / "rust-book" / "ch01-01-installation.md", repo="one")
    assert run(capsys, "setup", "cursor", "vscode")[0] == 0
    claude = home / ".claude.json"
    claude.write_text(
        json.dumps({"mcpServers": {"docmunch": {"command": "/nonexistent/docmunch", "args": ["serve"]}}})
    )
    code, out, _ = run(capsys, "doctor", "--json")
    by = {c["check"]: c for c in json.loads(out)["checks"]}
    assert code == 1
    assert by["index"]["status"] == "ok" and "1 repo," in by["index"]["message"]
    assert by["raw cache"]["status"] == "ok"
    assert by["client cursor"]["status"] == "ok" and by["client vscode"]["status"] == "ok"
    assert by["client claude-code"]["status"] == "error"
    assert by["client claude-code"]["fix"] == "`docmunch setup claude-code`"

    raw = next(p for p in (tmp_path / "data" / "raw").rglob("*") if p.is_file())
    raw.unlink()
    assert run(capsys, "setup", "claude-code")[0] == 0
    code, out, _ = run(capsys, "doctor")
    assert code == 1 and "error  raw cache: documents without their cached bytes: one (1)" in out
    assert "fix: `docmunch refresh one` or index it again" in out
    assert "ok  client claude-code" in out

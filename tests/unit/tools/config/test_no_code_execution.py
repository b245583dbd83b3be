"""A configuration file can never import or run code that is not a registered handler."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


def test_config_cannot_import_or_run_unregistered_code(tmp_path: Path) -> None:
    """Handler names that look like modules, and YAML python tags, import and run nothing."""
    (tmp_path / "evil_module.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('IMPORTED').write_text('x')\n"
        "def run(*a, **k):\n    pathlib.Path(__file__).with_name('RAN').write_text('x')\n"
    )
    base = {"description": "d", "type": "function", "parameters": {"type": "object"}}
    names = ["evil_module", "evil_module.run", "evil_module:run", "os.system", "__import__"]
    definitions = [
        {**base, "name": f"t{i}", "handler": h, "implementation": {"type": kind, "handler": h}}
        for i, h in enumerate(names)
        for kind in ("builtin", "internal")
    ]
    (tmp_path / "tools.json").write_text(json.dumps(definitions))
    (tmp_path / "tools.yaml").write_text(
        "- !!python/object/apply:evil_module.run []\n"
        "- name: y\n  description: !!python/name:evil_module.run\n"
    )
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(tmp_path)!r})
        from forge.tools.config import load_tools
        report = load_tools([{str(tmp_path / "tools.json")!r}, {str(tmp_path / "tools.yaml")!r}])
        print(json.dumps({{"tools": len(report.tools), "issues": [str(i) for i in report.issues],
                           "imported": "evil_module" in sys.modules}}))
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["tools"] == 0
    assert out["imported"] is False
    assert len(out["issues"]) == len(names) * 2 + 1
    assert "invalid YAML" in out["issues"][-1]
    assert not (tmp_path / "IMPORTED").exists()
    assert not (tmp_path / "RAN").exists()

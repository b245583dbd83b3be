"""``forge-tools import-openapi`` in-process: the large document, and refused documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from forge.cli import EXIT_NOT_FOUND, EXIT_OK, EXIT_VALIDATION, main
from tests.conftest import corpus


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run main() and return (code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow  # converts, then lints for every provider, 119 tools
def test_large_spec_converts_and_validates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """OpenAI's API description: 119 tools that validate passes; the 7 skips are reported."""
    tools = tmp_path / "openai.yaml"
    spec = corpus("openapi", "openai", "openapi.yaml")
    code, out, err = run(capsys, "import-openapi", str(spec), "-o", str(tools))
    assert code == EXIT_OK, err
    assert out == ""
    assert "OpenAI API: 119 tool(s)" in err
    assert "from 126 of 126 operation(s); 7 skipped" in err
    assert err.count("forge-tools: warning: skipped ") == 7
    code, out, err = run(capsys, "validate", str(tools))
    assert code == EXIT_OK, out[-2000:]
    assert "119 valid tool(s), 0 error(s)" in out


def test_definitions_go_to_stdout_without_output(capsys: pytest.CaptureFixture[str]) -> None:
    """Without -o the YAML goes to stdout, the summary to stderr."""
    spec = corpus("openapi", "oai-learn", "petstore-3.0.yaml")
    code, out, err = run(capsys, "import-openapi", str(spec), "--tag", "pets")
    assert code == EXIT_OK, err
    assert out.startswith("tools:\n- name: listPets\n")
    assert "Swagger Petstore: 3 tool(s) from 3 of 3 operation(s); 0 skipped" in err


def test_invalid_document_exits_with_its_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An invalid document exits 4 naming the place in it; a missing file exits 3."""
    spec = corpus("openapi", "swagger-petstore", "petstore-3.1.yaml")
    code, _, err = run(capsys, "import-openapi", str(spec))
    assert code == EXIT_VALIDATION
    assert "at /components/schemas/Pet/properties/petDetails/$ref" in err
    code, _, err = run(capsys, "import-openapi", str(tmp_path / "absent.yaml"))
    assert code == EXIT_NOT_FOUND
    assert "file not found" in err


def test_unwritable_output_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An output file that cannot be written exits 4 naming it, without a traceback."""
    spec = corpus("openapi", "oai-learn", "petstore-3.0.yaml")
    target = tmp_path / "missing-dir" / "tools.yaml"
    code, _, err = run(capsys, "import-openapi", str(spec), "-o", str(target))
    assert code == EXIT_VALIDATION
    assert f"{target}: cannot write the tools" in err


def test_credentials_only_from_the_variables_named(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --env-prefix or --security-env no variable is read; each names its own."""
    spec = str(corpus("openapi", "swagger-petstore", "petstore-3.0.yaml"))
    code, out, err = run(capsys, "import-openapi", spec, "--include", "getPetById")
    assert code == EXIT_OK, err
    assert "${" not in out
    assert "security scheme 'api_key' has no credential variable" in err
    assert "--security-env api_key=VAR" in err
    code, out, err = run(capsys, "import-openapi", spec, "--include", "getPetById",
                         "--security-env", "api_key=SHOP_KEY")  # fmt: skip
    assert code == EXIT_OK, err
    assert "api_key: ${SHOP_KEY}" in out
    assert "credentials are read from: SHOP_KEY" in err
    code, _, err = run(capsys, "import-openapi", spec, "--security-env", "api_key")
    assert code == EXIT_VALIDATION
    assert "'api_key' is not SCHEME=VAR" in err

"""``coordqa partners`` commands, and partners registered without torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coordqa.agentic.partners import bc
from coordqa.cli import app
from coordqa.errors import ConfigError, MissingDependencyError

runner = CliRunner()


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(bc, "PACKAGED_DIR", tmp_path / "no-packaged-checkpoints")
    monkeypatch.delenv("COORDQA_HANABI_WEIGHTS", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def test_list_shows_every_partner_with_status() -> None:
    result = runner.invoke(app, ["partners", "list"])
    assert result.exit_code == 0, result.output
    for name in ("bc-cramped_room", "hp-counter_circuit_o_1order", "sad", "obl"):
        assert name in result.output
    assert "needs training" in result.output and "needs weights" in result.output
    hanabi = runner.invoke(app, ["partners", "list", "--game", "hanabi"]).output
    assert "bc-cramped_room" not in hanabi and "obl" in hanabi


def test_unknown_partner_suggests_the_closest() -> None:
    result = runner.invoke(app, ["partners", "list", "hp-forced"])
    assert "Did you mean 'hp-forced_coordination'" in str(result.exception)


def test_add_hanabi_registers_a_file(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from coordqa.agentic.partners.hanabi_nets import published_shapes

    path = tmp_path / "m.pthw"
    torch.save({k: torch.zeros(s) for k, s in published_shapes("obl").items()}, path)
    result = runner.invoke(app, ["partners", "add-hanabi", str(path), "--name", "obl-zero"])
    assert result.exit_code == 0, result.output
    listing = runner.invoke(app, ["partners", "list", "obl-zero"]).output
    assert "ready" in listing and "m.pthw" in listing
    assert (tmp_path / "data" / "partners" / "hanabi.json").is_file()


def test_train_bc_needs_a_layout_or_all() -> None:
    result = runner.invoke(app, ["partners", "train-bc"])
    assert isinstance(result.exception, ConfigError)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--layout", "cramped_room", "--split", "val"], "unknown split 'val'"),
        (["--layout", "cramped_rom"], "Did you mean 'cramped_room'?"),
    ],
)
def test_train_bc_refuses_a_split_or_layout_before_any_work(args: list[str], said: str) -> None:
    from cli_support import coordqa

    result = coordqa("partners", "train-bc", *args)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and said in line, line
    assert result.stdout == ""  # no bar drawn before the error


def test_train_bc_does_not_replace_a_checkpoint_of_yours_unless_asked() -> None:
    """Walkthrough 29: train-bc replaced the seed-1 checkpoint a run had played with a new one
    without a word. A checkpoint of the user's is kept unless --replace is given, and the
    refusal comes before any training (--all would train ten first)."""
    import numpy as np
    from cli_support import coordqa

    path = bc.user_checkpoint("bc-cramped_room")
    earlier = bc.BCCheckpoint(
        [np.zeros((2, 2), dtype="<f4")], {"name": "bc-cramped_room", "seed": 1}
    )
    earlier.save(path)
    before = path.read_bytes()
    for args in (["--layout", "cramped_room"], ["--all"]):
        result = coordqa("partners", "train-bc", *args)
        assert result.returncode == 2, result.stderr
        said = " ".join(result.stderr.split())
        assert said.startswith("error: bc-cramped_room already has a checkpoint of yours"), said
        assert f"seed 1, weights {earlier.fingerprint}" in said and "--replace" in said
        assert result.stdout == "" and path.read_bytes() == before  # no bar, nothing trained


def test_without_torch_partners_register_but_fail_when_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import coordqa.agentic.partners as p\n"
        "from coordqa.errors import MissingDependencyError\n"
        "from coordqa.games import PLAYERS, make_player\n"
        "assert {'sad', 'obl', 'bc-cramped_room', 'hp-cramped_room'} <= set(PLAYERS.names())\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "try:\n"
        "    p.train_bc(p.TrainConfig('cramped_room', limit=5))\n"
        "except MissingDependencyError as e:\n"
        "    print('OK', e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout and "pip install 'coordqa[partners]'" in done.stdout


def test_hanabi_net_without_torch_is_a_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    from coordqa.agentic.partners.hanabi_nets import import_torch

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependencyError, match="coordqa\\[partners\\]"):
        import_torch()


def test_add_hanabi_refuses_a_folder_without_weight_files(tmp_path: Path) -> None:
    """Blind walkthrough 10 #331: ``partners add-hanabi runs/`` (no weight files) printed an
    empty table, exit 0, and kept the folder registered."""
    from cli_support import coordqa

    folder = tmp_path / "runs"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "model.pt").write_bytes(b"not a pthw")
    refused = coordqa("partners", "add-hanabi", str(folder))
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f"error: no Hanabi weight files (*.pthw, in any subfolder) in {folder}")
    assert "nothing was registered" in line and "hanabi_SAD" in line, line
    assert not (tmp_path / "data" / "partners" / "hanabi.json").exists()


def test_add_hanabi_checks_every_file_of_a_folder_as_it_checks_one(tmp_path: Path) -> None:
    """Walkthrough 23 (h23h item 1): a folder holding a corrupt 2-byte ``model.pthw`` was
    registered unchecked, and ``partners list`` then showed 'model' and the alias 'sad' as ready,
    while ``add-hanabi FILE`` refused the same file. A folder with one file that fails is refused
    whole, with the single-file form's reason, and nothing is registered."""
    torch = pytest.importorskip("torch")
    from cli_support import coordqa

    from coordqa.agentic.partners.hanabi_nets import published_shapes

    folder = tmp_path / "w"
    folder.mkdir()
    torch.save({k: torch.zeros(s) for k, s in published_shapes("sad").items()}, folder / "a.pthw")
    (folder / "model.pthw").write_bytes(b"ab")
    single = coordqa("partners", "add-hanabi", str(folder / "model.pthw"), "--name", "x")
    assert single.returncode == 2 and "not a PyTorch checkpoint" in single.stderr, single.stderr
    refused = coordqa("partners", "add-hanabi", str(folder))
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(f"error: {folder} was not registered: 1 of its 2 weight files"), line
    assert f"{folder / 'model.pthw'} (2 bytes) is not a PyTorch checkpoint" in line, line
    assert not (tmp_path / "data" / "partners" / "hanabi.json").exists()
    (folder / "model.pthw").unlink()
    assert coordqa("partners", "add-hanabi", str(folder)).returncode == 0


def test_the_sad_alias_plays_only_a_sad_2p_file(tmp_path: Path) -> None:
    """Walkthrough 23 (h23h item 1): the alias 'sad' played the only SAD-type file whatever its
    name; the docs say it plays the lowest-numbered ``sad_2p_<n>`` file."""
    torch = pytest.importorskip("torch")
    from coordqa.agentic.partners import list_partners
    from coordqa.agentic.partners.hanabi_nets import published_shapes

    path = tmp_path / "model.pthw"
    torch.save({k: torch.zeros(s) for k, s in published_shapes("sad").items()}, path)
    assert runner.invoke(app, ["partners", "add-hanabi", str(path), "--name", "m"]).exit_code == 0
    rows = {row.name: row for row in list_partners()}
    assert rows["m"].status == "ready"
    assert rows["sad"].status == "needs weights", rows["sad"]
    assert "sad_2p_<n>.pthw" in rows["sad"].hint and "'m'" in rows["sad"].hint, rows["sad"].hint
    two_player = tmp_path / "sad_2p_4.pthw"
    two_player.write_bytes(path.read_bytes())
    added = runner.invoke(app, ["partners", "add-hanabi", str(two_player), "--name", "s4"])
    assert added.exit_code == 0, added.output
    row = next(r for r in list_partners() if r.name == "sad")
    assert row.status == "ready" and row.source.startswith("alias of s4:"), row


def test_remove_unregisters_a_file_or_a_folder(tmp_path: Path) -> None:
    """Walkthrough 23 (h23h item 3): no command removed a registration (the user deleted
    partners/hanabi.json by hand). ``partners remove NAME`` removes a file's registration, a
    folder's by its path; an unknown name is refused with the closest registered ones."""
    torch = pytest.importorskip("torch")
    from cli_support import coordqa

    from coordqa.agentic.partners import hanabi_entries
    from coordqa.agentic.partners.hanabi_nets import published_shapes

    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("sad_2p_1.pthw", "sad_2p_2.pthw"):
        torch.save({k: torch.zeros(s) for k, s in published_shapes("sad").items()}, folder / name)
    assert runner.invoke(app, ["partners", "add-hanabi", str(folder)]).exit_code == 0
    one = ["partners", "add-hanabi", str(folder / "sad_2p_1.pthw"), "--name", "sad-one"]
    assert runner.invoke(app, one).exit_code == 0
    assert sorted(hanabi_entries()) == ["sad-2p-1", "sad-2p-2", "sad-one"]
    typo = coordqa("partners", "remove", "sad-onne")
    assert typo.returncode == 2, typo.stderr
    (line,) = typo.stderr.strip().splitlines()
    assert "no Hanabi registration 'sad-onne'" in line and "Did you mean 'sad-one'?" in line, line
    of_folder = coordqa("partners", "remove", "sad-2p-2")
    assert of_folder.returncode == 2 and f"coordqa partners remove {folder}" in of_folder.stderr
    removed = coordqa("partners", "remove", "sad-one")
    assert removed.returncode == 0, removed.stderr
    assert "removed sad-one" in removed.stdout, removed.stdout
    assert sorted(hanabi_entries()) == ["sad-2p-1", "sad-2p-2"]
    assert coordqa("partners", "remove", str(folder)).returncode == 0
    assert hanabi_entries() == {}


def test_list_says_the_shared_weights_advice_once() -> None:
    """Walkthrough 23, h23l item 1: the 'get the authors' files' advice was repeated verbatim
    under each of the 7 unregistered Hanabi aliases; it is said once, each row keeps its
    status and what the alias plays."""
    from coordqa.agentic.partners.paths import HANABI_WEIGHTS_SOURCE

    result = runner.invoke(app, ["partners", "list", "--game", "hanabi"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    source = " ".join(HANABI_WEIGHTS_SOURCE.split())
    assert flat.count(source) == 1, result.output
    assert flat.count("COORDQA_HANABI_WEIGHTS") == 1, result.output
    for alias in ("sad", "obl", "obl1", "obl5"):
        assert f"{alias} hanabi · " in flat
    assert flat.count("needs weights") == 7, result.output
    assert "'obl3' plays the first registered OBL-3 net" in flat
    assert "sad, obl, obl1, obl2, obl3, obl4, obl5: get the authors'" in flat, result.output


def test_a_registered_folder_since_deleted_is_listed_missing_with_its_fix(tmp_path: Path) -> None:
    """A folder registered with ``partners add-hanabi FOLDER`` and then deleted made every
    listing of partners (``partners list``, ``games list``) fail on "folder does not exist",
    without saying that ``partners remove FOLDER`` fixes it. Listings show it as missing with
    that fix; a partner name not found says it too."""
    import json

    from cli_support import coordqa

    gone = tmp_path / "weights"
    registrations = tmp_path / "data" / "partners" / "hanabi.json"
    registrations.parent.mkdir(parents=True)
    registrations.write_text(json.dumps({"version": 2, "nets": {}, "directories": [str(gone)]}))
    fix = f"coordqa partners remove {gone}"
    listed = coordqa("partners", "list", "--game", "hanabi")
    assert listed.returncode == 0, listed.stderr
    flat = " ".join(listed.stdout.split())
    assert f"{gone} hanabi · folder · missing" in flat and fix in flat, flat
    assert coordqa("games", "list").returncode == 0
    played = coordqa("play", "hanabi", "--players", "obl1-a,obl1-a")
    assert played.returncode == 2, played.stderr
    (line,) = played.stderr.strip().splitlines()
    assert "unknown player 'obl1-a'" in line and f"{gone} is gone" in line and fix in line, line
    alias = coordqa("play", "hanabi", "--players", "sad,sad")
    assert alias.returncode == 2 and fix in " ".join(alias.stderr.split()), alias.stderr
    assert coordqa("partners", "remove", str(gone)).returncode == 0
    assert str(gone) not in coordqa("partners", "list").stdout


def test_a_weights_variable_naming_a_folder_without_weights_is_said(tmp_path: Path) -> None:
    """Walkthrough 27 (#325): ``COORDQA_HANABI_WEIGHTS`` set to a folder holding no ``*.pthw``
    left every partner "needs weights ... (or set COORDQA_HANABI_WEIGHTS to their folder)":
    nothing said the folder it names is empty. It is listed as such, and so says a partner
    that needs weights."""
    from cli_support import coordqa

    empty = tmp_path / "emptyw"
    empty.mkdir()
    env = {"COORDQA_HANABI_WEIGHTS": str(empty)}
    listed = coordqa("partners", "list", "--game", "hanabi", env=env)
    assert listed.returncode == 0, listed.stderr
    flat = " ".join(listed.stdout.split())
    assert f"{empty} hanabi · folder · empty" in flat, flat
    assert "holds no weight files" in flat and "or set COORDQA_HANABI_WEIGHTS" not in flat, flat
    played = coordqa("play", "hanabi", "--players", "sad,sad", env=env)
    assert played.returncode == 2
    assert "holds no weight files" in " ".join(played.stderr.split()), played.stderr

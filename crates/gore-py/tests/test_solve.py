"""gore.solve: the solved database built from Python, without the CLI."""

from __future__ import annotations

import sys
import threading
import time

import pytest

import gore


def _files(d):
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_solve_builds_what_the_cli_builds(gore_cli, tmp_path):
    """The layers up to 5 seeds: the files are those `gore solve` writes,
    byte for byte, and the probe of gore-solver's documented example (A to
    move, a3 = 1, a4 = 3, b1 = 1, captured 22-21) gives 23-25, exact."""
    ours, cli = tmp_path / "py", tmp_path / "cli"
    calls = []
    stats = gore.solve(
        ours, max_seeds=5, threads=1, memory_mib=64, progress=lambda *a: calls.append(a)
    )
    gore_cli("solve", "--db", str(cli), "--max-seeds", "5", "--threads", "1", "--memory-mib", "64")
    assert _files(ours) == _files(cli) != {}
    assert [s["layer"] for s in stats] == [0, 1, 2, 3, 4, 5]
    # Layer 0: the one empty board (C(7, 0) = 1); layer 1: a seed in one of
    # 8 holes; layer 2: C(9, 2) = 36 boards. Each ends the game (every
    # hole at most 2): all exact.
    assert [s["boards"] for s in stats[:3]] == [1, 8, 36]
    assert all(s["ended"] == s["boards"] == s["exact"] for s in stats[:3])
    # Each layer was begun (done 0) and ended (done == total), in a
    # layer's own order.
    for n in range(6):
        mine = [(d, t) for (m, d, t) in calls if m == n]
        assert mine[0][0] == 0 and mine[-1][0] == mine[-1][1]
        assert [d for d, _ in mine] == sorted(d for d, _ in mine)
    db = gore.SolvedDb(ours)
    assert db.layers() == 6
    probe = db.probe(gore.Position("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", "no-trades"))
    assert probe.position.value == (23.0, 25.0) and probe.position.exact
    # Solving again finds every layer present and solves none.
    assert gore.solve(ours, max_seeds=5, threads=1) == []
    assert _files(ours) == _files(cli)


def test_skip_origin_database(tmp_path):
    gore.solve(tmp_path, max_seeds=3, skip_origin=True, threads=2)
    assert gore.SolvedDb(tmp_path).layers(skip_origin=True) == 4
    assert gore.SolvedDb(tmp_path).layers(skip_origin=False) == 0


def test_an_exception_in_the_callback_stops_the_build_and_it_resumes(tmp_path):
    class Stop(Exception):
        pass

    def progress(layer, done, total):
        if layer == 3:
            raise Stop("enough")

    stopped, fresh = tmp_path / "stopped", tmp_path / "fresh"
    with pytest.raises(Stop, match="enough"):
        gore.solve(stopped, max_seeds=6, threads=1, progress=progress)
    # Layer 3 began (the callback raised) but was not saved.
    kept = gore.SolvedDb(stopped).layers()
    assert kept <= 3
    resumed = gore.solve(stopped, max_seeds=6, threads=1)
    # The odd and the even layers are solved side by side: some above 3
    # may have been saved before the stop; 3 was not, and is solved now.
    assert 3 in [s["layer"] for s in resumed]
    assert gore.SolvedDb(stopped).layers() == 7
    gore.solve(fresh, max_seeds=6, threads=1)
    assert _files(stopped) == _files(fresh)


def test_the_gil_is_released_while_solving(tmp_path):
    """The main thread keeps counting between the solver's first and last
    progress reports: with the GIL held by solve, it could not take one
    step between them (the reports come from the solver's own threads)."""
    done = threading.Event()
    counter = 0
    seen = []

    def build():
        gore.solve(tmp_path, max_seeds=12, threads=1, progress=lambda *a: seen.append(counter))
        done.set()

    t = threading.Thread(target=build)
    t.start()
    while not done.is_set():
        counter += 1
    t.join()
    assert gore.SolvedDb(tmp_path).layers() == 13
    assert seen[-1] - seen[0] > 1000, (seen[0], seen[-1])


def test_console_script(tmp_path):
    """`gore-solve`, installed with the wheel, builds the same files."""
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "gore-solve"
    assert exe.exists(), "gore-solve is installed with the package"
    r = subprocess.run(
        [str(exe), "--db", str(tmp_path / "a"), "--max-seeds", "4", "--threads", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "no-trades: solved layers 0 to 4" in r.stdout
    assert "layer  4: 100.0%" in r.stderr
    gore.solve(tmp_path / "b", max_seeds=4, threads=1)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    again = subprocess.run(
        [str(exe), "--db", str(tmp_path / "a"), "--max-seeds", "4"], capture_output=True, text=True
    )
    assert again.returncode == 0 and "nothing to solve" in again.stdout
    bad = subprocess.run(
        [str(exe), "--db", str(tmp_path / "c"), "--max-seeds", "49"], capture_output=True, text=True
    )
    assert bad.returncode == 1 and "max_seeds: expected 0 to 48, not 49" in bad.stderr


def test_ctrl_c_stops_the_build(tmp_path):
    """SIGINT while solve runs in the main thread raises KeyboardInterrupt
    from solve, once the layers being solved are done; what is saved stays
    and a later build completes it."""
    import _thread
    import signal

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    started = threading.Event()
    log = []

    def progress(layer, done, total):
        log.append((round(time.monotonic() - t0, 3), layer, done, total))
        if layer >= 10:
            started.set()

    def interrupt():
        # One Ctrl-C, once a large layer has begun.
        if started.wait(60):
            log.append((round(time.monotonic() - t0, 3), "SIGINT"))
            # What Ctrl-C does to Python: SIGINT tripped for the main thread
            # (the signal argument is 3.10's; 3.9's trips SIGINT always).
            if sys.version_info >= (3, 10):
                _thread.interrupt_main(signal.SIGINT)
            else:
                _thread.interrupt_main()

    timer = threading.Thread(target=interrupt)
    # Python's own handler: a process started in the background by a
    # shell inherits SIGINT ignored, and Python then leaves it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    t0 = time.monotonic()
    timer.start()
    try:
        gore.solve(tmp_path, max_seeds=20, threads=1, progress=progress)
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert interrupted, [x for x in log if "SIGINT" in x] + log[-6:]
    assert gore.SolvedDb(tmp_path).layers() < 21
    # Resumed: the layers saved before the interrupt (layer 0 at least,
    # solved before any layer from 10) are kept, the others solved now.
    resumed = [s["layer"] for s in gore.solve(tmp_path, max_seeds=20, threads=1)]
    assert resumed and 0 not in resumed
    assert gore.SolvedDb(tmp_path).layers() == 21

"""A prompt of the terminal programs never loses a Ctrl-C (``paohuzi.cli.prompt``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.test_cli_play import as_from_a_shell

SRC = Path(__file__).parent.parent / "src"

# The Ctrl-C arrives where Python only notes it: the main thread blocks SIGINT, so the kernel
# hands it to a second thread, and the main thread learns of it only when it runs Python code
# again — the case of a Ctrl-C that lands after the prompt is printed but before the read
# begins (a CI run lost one so: the program asleep in the terminal's read, SIGINT caught and
# nothing pending). A plain ``input()`` sleeps in ``read()`` until a line comes.
# Each script starts as from a shell (``preexec_fn=as_from_a_shell``): a child inherits whether
# its parent ignores or blocks SIGINT, a test worker of a CI run once did, and the Ctrl-C below
# was lost.
SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from rich.console import Console
    from paohuzi.cli.prompt import ask

    controller, terminal = os.openpty()
    os.dup2(terminal, 0)  # standard input is a terminal no one types on
    def press_ctrl_c():
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGINT)
    thread = threading.Thread(target=press_ctrl_c, daemon=True)
    thread.start()  # before the block below: the thread takes the signal
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        ask(Console(file=sys.stderr), "your move: ")
    except KeyboardInterrupt:
        print("interrupted")
    """
)


def test_a_ctrl_c_noted_outside_the_read_ends_the_prompt() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,  # a lost Ctrl-C waits for a line that never comes
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC)},
        preexec_fn=as_from_a_shell,
    )
    assert done.stdout.strip() == "interrupted", done.stderr
    assert "your move: " in done.stderr


# The Ctrl-C arrives just as a print ends, inside rich's ``_exit_buffer`` before it lowers its
# count of writes under way (a trace function raises SIGINT there). rich's own console then
# writes nothing ever again: a CI run hung so, its question after the Ctrl-C never shown.
AS_A_PRINT_ENDS = textwrap.dedent(
    """
    import signal, sys
    import rich.console
    from paohuzi.cli.prompt import Console, ctrl_c_between_prints

    def ctrl_c_as_the_print_ends(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "_exit_buffer":
            sys.settrace(None)
            signal.raise_signal(signal.SIGINT)

    with ctrl_c_between_prints():
        console = {console}(file=sys.stdout)
        sys.settrace(ctrl_c_as_the_print_ends)
        try:
            console.print("the move")
        except KeyboardInterrupt:
            console.print("Leaving. Save the record? [y/N]", markup=False)
    """
)


def test_a_ctrl_c_as_a_print_ends_loses_no_output() -> None:
    def run(console: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", AS_A_PRINT_ENDS.format(console=console)],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC)},
            preexec_fn=as_from_a_shell,
            check=True,
        ).stdout

    assert run("Console").splitlines() == ["the move", "Leaving. Save the record? [y/N]"]
    # The same Ctrl-C with rich's console: nothing is written, the question neither.
    assert run("rich.console.Console") == ""

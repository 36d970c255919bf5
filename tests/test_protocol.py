"""The bot protocol: a bot in another process plays full hands; a broken one cannot corrupt a
game."""

from __future__ import annotations

import sys
from pathlib import Path

from paohuzi.bots import GreedyBot, RandomBot, play_hand
from paohuzi.bots.protocol import SubprocessBot
from paohuzi.game import Game
from paohuzi.record import Record, record_of, replay

EXAMPLE = Path(__file__).parent.parent / "examples" / "bots" / "random_bot.py"


def test_a_subprocess_bot_plays_fifty_hands_without_an_illegal_move() -> None:
    bot = SubprocessBot([sys.executable, str(EXAMPLE), "3"], name="example")
    try:
        decisions = 0
        for i in range(50):
            game = Game(seed=i, dealer=i % 3)
            play_hand(game, [bot, GreedyBot(), RandomBot(i)])
            assert game.is_over
            decisions += sum(1 for seat, _ in game.history if seat == 0)
        assert bot.errors == []
        assert decisions > 200
    finally:
        bot.close()


def _broken(code: str, timeout: float = 5.0) -> SubprocessBot:
    return SubprocessBot([sys.executable, "-c", code], name="broken", timeout=timeout)


def _check_game_survives(bot: SubprocessBot, hands: int = 3) -> None:
    try:
        for i in range(hands):
            game = Game(seed=100 + i)
            play_hand(game, [bot, RandomBot(i), RandomBot(i + 1)])
            assert game.is_over
            again = replay(Record.from_json(record_of(game).to_json()))
            assert again.error is None and again.game.result == game.result
        assert bot.errors
    finally:
        bot.close()


def test_garbage_answers_fall_back_and_are_logged() -> None:
    bot = _broken("import sys\nfor line in sys.stdin: print('garbage {', flush=True)")
    _check_game_survives(bot)
    assert any("unreadable" in e for e in bot.errors)


def test_illegal_answers_fall_back_and_are_logged() -> None:
    bot = _broken(
        'import sys\nfor line in sys.stdin: print(\'{"action": "hu"}\', flush=True) if \'"ask"\' in line else None'
    )
    _check_game_survives(bot)
    assert any("illegal" in e for e in bot.errors)


def test_a_silent_bot_times_out() -> None:
    bot = _broken("import sys, time\nfor line in sys.stdin: pass", timeout=0.05)
    _check_game_survives(bot, hands=1)
    assert any("no answer" in e for e in bot.errors)


def test_a_bot_that_exits_is_replaced_by_the_default() -> None:
    bot = _broken("print('bye')")
    _check_game_survives(bot, hands=1)

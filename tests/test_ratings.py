"""Ratings (issue 25, D120): the pure update and display, and the acceptance test: a stronger
and a weaker computer playing as players over many matches end up ordered."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paohuzi.bots import make_bot, play_hand
from paohuzi.engine.match import Match
from paohuzi.engine.rules import HUNAN, LUZHOU
from paohuzi.server.ratings import (
    BOT_MU,
    MU,
    PROVISIONAL_HANDS,
    SIGMA,
    BotLevel,
    Rating,
    bot_level,
    display,
    family,
    provisional,
    update,
)

HANDS = 8
MATCHES = 120


def played_matches() -> list[tuple[tuple[str, ...], list[int]]]:
    """Matches of :data:`HANDS` hands of greedy, random and a greedy reference, their seats in
    every order in turn: who sat where and the match's totals."""
    orders = [("strong", "weak", "ref"), ("weak", "ref", "strong"), ("ref", "strong", "weak")]
    found: list[tuple[tuple[str, ...], list[int]]] = []
    for m in range(MATCHES):
        seating = orders[m % 3]
        match = Match(HUNAN, seed=2500 + m, dealer=m % 3)
        for h in range(HANDS):
            game = match.new_game()
            levels = {"strong": "greedy", "weak": "random", "ref": "greedy"}
            bots = [make_bot(levels[who], m * 97 + h * 7 + s) for s, who in enumerate(seating)]
            play_hand(game, bots)
            match.finish(game)
        found.append((seating, list(match.totals)))
    return found


def rate(
    matches: list[tuple[tuple[str, ...], list[int]]], swapped: bool = False
) -> dict[str, Rating]:
    """Both players' ratings after every match, from new; ``swapped``: each match's totals of
    the strong and the weak exchanged."""
    ratings = {"strong": Rating(), "weak": Rating()}
    reference = BotLevel("greedy")
    for seating, totals in matches:
        if swapped:
            where = {who: s for s, who in enumerate(seating)}
            totals = totals[:]
            a, b = where["strong"], where["weak"]
            totals[a], totals[b] = totals[b], totals[a]
        players = [reference if who == "ref" else ratings[who] for who in seating]
        after = update(players, totals, HANDS)
        for who, new in zip(seating, after, strict=True):
            if who != "ref":
                ratings[who] = new
    return ratings


def test_a_stronger_bot_playing_as_a_player_is_rated_above_a_weaker_one() -> None:
    matches = played_matches()
    found = rate(matches)
    assert found["strong"].mu > found["weak"].mu + 2 * max(found["strong"].sigma, 1.0)
    assert display(found["strong"]) > display(found["weak"])
    # Against a greedy reference, greedy as a player lands near the reference's mean, and both
    # are surer than new.
    assert abs(found["strong"].mu - BOT_MU["greedy"]) < 3 * found["strong"].sigma
    assert found["strong"].sigma < SIGMA / 2 and found["weak"].sigma < SIGMA / 2
    # The same matches with the two players' results exchanged order them the other way.
    swapped = rate(matches, swapped=True)
    assert swapped["weak"].mu > swapped["strong"].mu + 2 * max(swapped["weak"].sigma, 1.0)


def test_a_bot_keeps_its_reference_rating_whatever_the_result() -> None:
    bot = BotLevel("greedy")
    for totals in ([30, -10, -20], [-30, 10, 20], [0, 0, 0]):
        after = update([bot, Rating(), Rating(30, 2)], totals)
        assert after[0] == bot.rating == Rating(BOT_MU["greedy"], bot.rating.sigma)


def test_the_winner_goes_up_the_loser_down_and_ties_tie() -> None:
    a, b, c = update([Rating(), Rating(), Rating()], [20, 0, -20])
    assert a.mu > b.mu > c.mu and a.mu > MU > c.mu
    assert a.sigma < SIGMA and c.sigma < SIGMA
    x, y = update([Rating(), Rating()], [5, 5])
    assert x == y and abs(x.mu - MU) < 1e-9


def test_a_longer_match_moves_a_rating_more() -> None:
    one = update([Rating(), BotLevel("greedy")], [10, -10], hands=1)[0]
    sixteen = update([Rating(), BotLevel("greedy")], [10, -10], hands=16)[0]
    assert MU < one.mu < sixteen.mu


def test_bad_matches_are_refused() -> None:
    with pytest.raises(ValueError):
        update([Rating()], [0])
    with pytest.raises(ValueError):
        update([Rating(), Rating()], [1, 2, 3])
    with pytest.raises(ValueError):
        update([Rating(), Rating()], [1, 2], hands=0)
    with pytest.raises(ValueError):
        BotLevel("nobody")


def test_display_provisional_family_and_levels() -> None:
    assert display(Rating()) == 1500
    assert display(Rating(MU + 2)) == 1600
    assert provisional(PROVISIONAL_HANDS - 1) and not provisional(PROVISIONAL_HANDS)
    assert family(HUNAN) == "hunan" and family(LUZHOU) == "luzhou"
    assert family(replace(HUNAN, players=4, min_huxi=10)) == "hunan"
    assert family(replace(HUNAN, name="nowhere")) is None
    assert bot_level("greedy") == BotLevel("greedy")
    assert bot_level("expert@50") is None and bot_level(None) is None
    # The levels' references keep the tournament's order (D120).
    assert BOT_MU["random"] < BOT_MU["greedy"] < BOT_MU["learned"]

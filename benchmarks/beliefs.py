"""What better beliefs about the others' hands would buy a search, and what three models buy (D174).

Run: ``python benchmarks/beliefs.py [--deals 1500] [--seed 9100] [--samples 16] [--modes
shipped,known,discards,ratio,shape] [--workers 2] [--overlap HANDS]`` (any of the modes below). Each
deal is played three times, the searching bot ``learned@SAMPLES`` (a fixed number of samples a
search, so that only the samples' quality differs) in each seat in turn beside two greedy bots; per
mode it prints the bot's points a hand and, paired on the same deals, its difference from
``shipped``, with 95% confidence intervals. The modes change only how the search's samples are drawn
(each sample's game, on which the candidates are played out as the bot plays them):

* ``shipped``: as the bot draws them — the unseen cards dealt within the rules and the caps of
  the others' play (:mod:`paohuzi.bots.beliefs`, D135);
* ``known``: the others' hands (and face-down 偎) as they truly are, only the wall's order
  drawn — what perfect beliefs would be worth, a bound no model of play can pass;
* ``known-next``, ``known-after``: one other seat's hand known (the next seat's, the one
  after it), the rest drawn as shipped; ``known-discards``: ``known`` on the seat's own
  discards, ``shipped`` on its claims — where perfect beliefs pay;
* ``noisy-10``, ``noisy-25``, ``noisy-50``: the others' hands as they are, but each of their
  cards given back to the unseen pool with chance 10%, 25%, 50% and the pool dealt again —
  how the worth of beliefs falls as they err (``overlap`` counts the cards a deal places
  right: about 92%, 84% and 73% of the others' hand cards, against 59% as shipped; their
  face-down 偎 stay as they are, which ``overlap`` does not count);
* ``judged-8``, ``judged-64``: of 8 or 64 deals drawn as shipped, the one with the most of
  the others' hand cards right — what keeping one of N draws by a model's weight (as the
  three models below do) makes of the draws when the model judges by the truth;
* ``discards``: a stated model of the others' discards — a player discards a card its hand
  then rates best by the greedy bot's score (ties equal; the hand then is the sampled hand plus
  what it was seen letting go of since, its face-down 偎 included), a deal where a discard was
  not among the best weighs ``--eps`` (0.33: the odds measured on greedy self-play, a miss in
  18% of true deals against 40% of drawn ones) — one deal kept of ``--choices`` drawn, by weight;
* ``ratio``: a learned density ratio — a linear model of the public record per other seat and
  kind (what it discarded, let go by, has on its table, how many are unseen …) by the count of
  the kind it holds, fitted on ``--fit-hands`` hands of greedy self-play (another seed) to tell
  the true deal from a drawn one (a paired logistic loss), each sample one of ``--choices``
  drawn deals kept by the model's weight;
* ``shape``: a learned density ratio of the hands' shape — per other seat, the shares of its
  hand that are isolated cards, pairs and cards with a partner, its 坎, and the greedy bot's
  score of the hand, alone and by the game's progress and the seat's cards let go, fitted as
  ``ratio`` is (true hands are kept in shape by their players; drawn ones are not).

The figures of D174 are ``--seed 9200``: 13 min 29 s for the first four modes, about 4 minutes a
known mode more (2 workers, nothing beside it); those of D176 the same deals (``noisy-*`` about a
minute a mode, ``judged-64`` about 12) and ``--overlap 100 --seed 9200``. The searching bot is moved
into these modes by replacing the function its race draws each sample with
(``paohuzi.bots.expert.sampled_rollout``) in the worker processes.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

import paohuzi.bots.expert as expert_module
from paohuzi.bots import make_bot
from paohuzi.bots.beliefs import Beliefs, ClueType, clues, draw
from paohuzi.bots.greedy import GreedyBot, hand_value
from paohuzi.bots.rollout import rollout_payments, sampled_rollout
from paohuzi.bots.sampler import SamplingError, sample
from paohuzi.engine.actions import Action
from paohuzi.engine.cards import NUM_KINDS, RED_KINDS, is_big
from paohuzi.engine.core import Waits
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.groups import PARTNERS, Group
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.position import ClaimWindow
from paohuzi.engine.rules import HUNAN
from paohuzi.tools.tournament import deal_deck, mean_ci

Rollout = Callable[[Observation, Beliefs | None, random.Random, Sequence[Action], Waits], list[int]]
Array = NDArray[np.float64]

SHIPPED: Rollout = sampled_rollout
TRUE: list[Game] = []
"""The game being played, for ``known`` (set before each of the searching bot's decisions)."""
CHOICES = 8
EPS = 0.33
THETA: Array = np.zeros(0)
SHAPE: Array = np.zeros(0)


Drawer = Callable[[Observation, Beliefs | None, random.Random], Game]
"""How a mode draws a sample's game (:func:`played_on` makes it a race's sample)."""


def played_on(draw_game: Drawer) -> Rollout:
    """The candidates' payments on a game drawn by ``draw_game``, as the race's samples are."""

    def rollout(
        obs: Observation,
        beliefs: Beliefs | None,
        rng: random.Random,
        candidates: Sequence[Action],
        waits: Waits,
    ) -> list[int]:
        assert obs.seat is not None
        game = draw_game(obs, beliefs, rng)
        return rollout_payments(game, candidates, obs.seat, waits=waits)

    return rollout


def known(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
    """The true position with the wall's order drawn."""
    del obs, beliefs
    position = TRUE[0].position()
    wall = list(position.wall)
    rng.shuffle(wall)
    return Game.from_position(replace(position, wall=tuple(wall)), TRUE[0].rules)


def one_known(which: int) -> Drawer:
    """Samples in which one other seat's hand is known (``which``: 0 the next seat, 1 the one
    after), the rest drawn as shipped (that seat's hand capped at what it holds, its size
    fixed, so the sampler must deal it exactly; its face-down 偎 still drawn)."""

    def draw_game(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
        assert obs.seat is not None
        seat = obs.seating.order_from(obs.seat)[1 + which]
        caps = dict(beliefs.caps) if beliefs is not None else {}
        caps[seat] = TRUE[0].hands[seat]
        try:
            return sample(obs, rng, caps=caps)
        except SamplingError:
            return sample(obs, rng, caps={seat: TRUE[0].hands[seat]})

    return draw_game


def noisy(share: float) -> Drawer:
    """The true hands with each card of the others' hands given back to the unseen pool with
    chance ``share``, the pool then dealt again to the places emptied and the wall (a seat's
    hand is never left four of a kind, which the rules would have made a 提, nor one that
    changes who is asked about the card on offer; a seat that has answered it, unseen, keeps
    its hand; the caps of the others' play aside; their face-down 偎, which :func:`overlap`
    does not count, stay as they are): beliefs right on about ``1 − share`` of the others' hand
    cards — how the worth of beliefs falls with their error (after 100 tries the true
    game: none of 1,455 decisions of 60 hands of greedy self-play came to it at ½)."""

    def draw_game(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
        del beliefs
        assert obs.seat is not None
        position = TRUE[0].position()
        phase = position.phase
        claimed = {s for s, _ in phase.claims} if isinstance(phase, ClaimWindow) else set()
        for _ in range(100):
            pool = list(position.wall)
            kept: dict[int, list[int]] = {}
            for s, state in enumerate(position.seats):
                if s == obs.seat or s in claimed:
                    continue
                kept[s] = []
                for k in state.hand_cards():
                    (pool if rng.random() < share else kept[s]).append(k)
            rng.shuffle(pool)
            seats = list(position.seats)
            for s, cards in kept.items():
                n = sum(seats[s].hand) - len(cards)
                cards += pool[:n]
                del pool[:n]
                seats[s] = seats[s].but(hand=tuple(cards.count(k) for k in range(NUM_KINDS)))
            if any(max(seats[s].hand) == 4 for s in kept):
                continue
            moved = replace(position, wall=tuple(pool), seats=tuple(seats))
            try:
                return Game.from_position(moved, TRUE[0].rules)
            except ValueError:  # the card on offer would be asked of other seats
                continue
        return known(obs, None, rng)

    return draw_game


def overlap(obs: Observation, game: Game) -> int:
    """How many of the others' hand cards ``game`` places right (in the true game's hands)."""
    true = TRUE[0].hands
    return sum(
        min(held, true[s][k])
        for s in range(len(true))
        if s != obs.seat
        for k, held in enumerate(game.hands[s])
    )


def judged(choices: int) -> Drawer:
    """Of ``choices`` deals drawn as shipped, the one with the most of the others' hand cards
    right (judged by the truth): keeping one of ``choices`` draws, as ``discards``, ``ratio``
    and ``shape`` do, with a judge no model of play can pass at placing the cards."""

    def draw_game(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
        games = [drawn(obs, beliefs, rng) for _ in range(choices)]
        return max(games, key=lambda g: overlap(obs, g))

    return draw_game


def known_on_discards(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
    """``known`` for the seat's own discards, drawn as shipped for its claims (the same game
    as ``shipped``'s from the same generator, D159)."""
    return known(obs, beliefs, rng) if obs.offer is None else drawn(obs, beliefs, rng)


def drawn(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
    return sample(obs, rng) if beliefs is None else draw(obs, beliefs, rng)


def kept_by_weight(
    obs: Observation,
    beliefs: Beliefs | None,
    rng: random.Random,
    log_weight: Callable[[Game], float],
) -> Game:
    """One of :data:`CHOICES` drawn games, kept with probability in proportion to its weight."""
    games = [drawn(obs, beliefs, rng) for _ in range(CHOICES)]
    logs = [log_weight(g) for g in games]
    top = max(logs)
    weights = [math.exp(w - top) for w in logs]
    pick = rng.random() * sum(weights)
    for w, game in zip(weights, games, strict=True):
        pick -= w
        if pick < 0:
            return game
    return games[-1]


class Discards:
    """The others' discards in one observation, ready to be judged on drawn deals."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.unseen = obs.unseen()
        self.plan: list[tuple[int, frozenset[int] | None]] = []
        discarded: list[set[int]] = [set() for _ in obs.tables]
        for e in obs.events:
            then = None
            if e.type is EventType.DISCARD and e.card is not None:
                then = frozenset(discarded[obs.seating.next(e.seat)])
                discarded[e.seat].add(e.card)
            self.plan.append((e.seat, then))

    def hands_then(self, game: Game) -> list[tuple[int, int, list[int], frozenset[int]]]:
        """(seat, card, its hand just before, its next seat's discards then), per other seat's
        discard: the drawn hand now plus the hand cards it let go of since."""
        assert self.obs.seat is not None
        tables = [s.table for s in game.position().seats]
        made = [0] * len(tables)
        formed: list[set[int]] = [set() for _ in tables]
        takes: list[dict[int, int]] = []
        for e in self.obs.events:
            s, got = e.seat, {}
            if e.type in (EventType.WEI, EventType.CHOUWEI):
                k = tables[s][made[s]].cards[0] if e.card is None else e.card
                made[s] += 1
                formed[s].add(k)
                got = {k: 2}
            elif e.type is EventType.PENG and e.card is not None:
                made[s] += 1
                formed[s].add(e.card)
                got = {e.card: 2}
            elif e.type is EventType.CHI and e.card is not None:
                made[s] += len(e.groups)
                cards = [k for g in e.groups for k in g.cards]
                cards.remove(e.card)
                for k in cards:
                    got[k] = got.get(k, 0) + 1
            elif e.type in (EventType.TI, EventType.PAO) and e.card is not None:
                if e.card not in formed[s]:  # from the hand, not a group on the table
                    made[s] += 1
                    got = {e.card: 3}
                formed[s].add(e.card)
            elif e.type is EventType.DISCARD and e.card is not None:
                got = {e.card: 1}
            takes.append(got)
        hands = [list(h) for h in game.hands]
        found = []
        for e, (seat, then), got in zip(
            reversed(self.obs.events), reversed(self.plan), reversed(takes), strict=True
        ):
            for k, n in got.items():
                hands[seat][k] += n
            if then is not None and seat != self.obs.seat and e.card is not None:
                found.append((seat, e.card, list(hands[seat]), then))
        return found

    def misses(self, game: Game) -> int:
        """How many of the others' discards were not among the best of their hand then."""
        missed = 0
        none: list[Group] = []
        for _, card, hand, then in self.hands_then(game):
            values = {}
            for k in range(NUM_KINDS):
                if hand[k] in (1, 2):
                    hand[k] -= 1
                    value = hand_value(hand, none, HUNAN, self.unseen, count_waits=False)
                    hand[k] += 1
                    values[k] = value - (0.6 if k not in then else 0.0)
            if card not in values or values[card] < max(values.values()):
                missed += 1
        return missed


_judged: list[tuple[Observation, Discards]] = []


def discards(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
    if not _judged or _judged[0][0] is not obs:
        _judged[:] = [(obs, Discards(obs))]
    judge = _judged[0][1]
    return kept_by_weight(obs, beliefs, rng, lambda g: judge.misses(g) * math.log(EPS))


FEATURES = 22
BIG = np.array([1.0 if is_big(k) else 0.0 for k in range(NUM_KINDS)])
RED = np.array([1.0 if k in RED_KINDS else 0.0 for k in range(NUM_KINDS)])


def features(obs: Observation) -> tuple[list[int], Array]:
    """The other seats (in turn from the observer's) and their features per kind."""
    me = obs.seat
    assert me is not None
    others = [s for s in obs.seating.order_from(me) if s != me and s in obs.seating.playing]
    unseen = np.array(obs.unseen(), dtype=float)
    found = clues(obs)
    x = np.zeros((len(others), NUM_KINDS, FEATURES))
    for i, s in enumerate(others):
        let_go, went, chi = np.zeros(NUM_KINDS), np.zeros(NUM_KINDS), np.zeros(NUM_KINDS)
        for c in found:
            if c.seat != s:
                continue
            if c.type is ClueType.DISCARDED:
                let_go[c.card] += 1
            else:
                went[c.card] += 1
                chi[c.card] += c.chi
        for k in obs.discarded[s]:
            let_go[k] = max(let_go[k], 1)
        table = np.zeros(NUM_KINDS)
        for g in obs.tables[s]:
            for k in g.cards or ():
                table[k] += 1
        partners = [list(PARTNERS[k]) for k in range(NUM_KINDS)]
        near_let_go = np.array([let_go[p].sum() for p in partners])
        near_unseen = np.array([unseen[p].sum() for p in partners])
        near_table = np.array([table[p].sum() for p in partners])
        f = x[i]
        f[:, 0] = 1
        for n in range(5):
            f[:, 1 + n] = unseen == n
        f[:, 6] = let_go > 0
        f[:, 7] = np.minimum(went, 3) / 3
        f[:, 8] = np.minimum(chi, 3) / 3
        f[:, 9] = np.minimum(near_let_go, 4) / 4
        f[:, 10] = obs.hand_sizes[s] / 20
        f[:, 11] = obs.wall / 60
        f[:, 12] = i == 0
        f[:, 13] = BIG
        f[:, 14] = RED
        f[:, 15] = len(obs.discarded[s]) / 10
        f[:, 16] = np.minimum(near_table, 4) / 4
        f[:, 17] = near_unseen / 12
        f[:, 18] = (let_go > 0) * obs.hand_sizes[s] / 20
        f[:, 19] = (went > 0) * (unseen >= 2)
        f[:, 20] = (near_let_go > 0) * (unseen >= 1)
        f[:, 21] = table > 0
    return others, x


def by_count(x: Array, counts: NDArray[np.int64]) -> Array:
    """The features of each (seat, kind) placed in the block of the count held (0–3), summed."""
    held = np.eye(4)[np.minimum(counts, 3)]
    summed: Array = (held[..., :, None] * x[..., None, :]).reshape(-1, 4 * FEATURES).sum(axis=0)
    return summed


def logistic(d: Array) -> Array:
    """Weights w making ``sigmoid(d @ w)`` the chance that each row's first deal is the true
    one (rows: true deal's features less a drawn deal's): Adam on the logistic loss, a
    little L2."""
    theta = np.zeros(d.shape[1])
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for step in range(1, 2001):
        p = 1 / (1 + np.exp(-(d @ theta)))
        grad = -(d * (1 - p)[:, None]).mean(axis=0) + 1e-4 * theta
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        theta -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return theta


def fit(name: str, hands: int, seed: int, row: Callable[[Observation, Game, Game], Array]) -> Array:
    """A model's weights, fitted on greedy self-play: at a quarter of the decisions with a
    choice, ``row`` of the true game and of one drawn for the seat deciding (the true deal's
    features less the drawn one's), then :func:`logistic`."""
    rng = random.Random(seed)
    greedy = GreedyBot()
    rows = []
    for hand in range(hands):
        game = Game(dealer=hand % 3, deck=deal_deck(seed, hand))
        while (seat := game.to_act) is not None:
            if len(game.legal_actions()) > 1 and rng.random() < 0.25:
                obs = observe(game, seat)
                rows.append(row(obs, game, draw(obs, Beliefs(obs), rng)))
            game.apply(greedy.game_act(game))
    d = np.array(rows)
    theta = logistic(d)
    right = float(np.mean(d @ theta > 0))
    print(f"{name} model: {len(rows)} decisions, the true deal preferred in {right:.1%}")
    return theta


def ratio_row(obs: Observation, true: Game, fake: Game) -> Array:
    """:func:`fit`'s row for the ratio model: :func:`by_count` of the true hands less the
    drawn ones'."""
    others, x = features(obs)
    held = np.array([true.hands[o] for o in others])
    made = np.array([fake.hands[o] for o in others])
    return by_count(x, held) - by_count(x, made)


_rated: list[tuple[Observation, list[int], Array]] = []


def ratio(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
    if not _rated or _rated[0][0] is not obs:
        others, x = features(obs)
        table = np.einsum("skf,cf->skc", x, THETA.reshape(4, FEATURES))
        _rated[:] = [(obs, others, table)]
    _, others, table = _rated[0]

    def log_weight(game: Game) -> float:
        held = np.minimum(np.array([game.hands[o] for o in others]), 3)
        return float(np.take_along_axis(table, held[..., None], axis=2).sum())

    try:
        return kept_by_weight(obs, beliefs, rng, log_weight)
    except SamplingError:
        return kept_by_weight(obs, None, rng, log_weight)


def shape_features(obs: Observation, hands: Sequence[Sequence[int]], unseen: list[int]) -> Array:
    """The shape of each other seat's hand (the shape model's inputs), in turn from the
    observer's."""
    assert obs.seat is not None
    found: list[float] = []
    progress = obs.wall / 60
    none: list[Group] = []
    for s in obs.seating.order_from(obs.seat):
        if s == obs.seat or s not in obs.seating.playing:
            continue
        hand = list(hands[s])
        n = max(1, sum(hand))
        alone = pairs = partnered = kan = 0
        for k, held in enumerate(hand):
            if held >= 3:
                kan += 1
            elif held == 2:
                pairs += 1
            elif held == 1 and any(hand[p] for p in PARTNERS[k]):
                partnered += 1
            elif held == 1:
                alone += 1
        score = hand_value(hand, none, HUNAN, unseen, count_waits=False)
        base = [alone / n, pairs / n, partnered / n, kan / 3, score / 20]
        found += base + [b * progress for b in base] + [b * (1 - sum(hand) / 20) for b in base]
    return np.array(found)


def shape_row(obs: Observation, true: Game, fake: Game) -> Array:
    """:func:`fit`'s row for the shape model."""
    unseen = obs.unseen()
    return shape_features(obs, true.hands, unseen) - shape_features(obs, fake.hands, unseen)


def shape(obs: Observation, beliefs: Beliefs | None, rng: random.Random) -> Game:
    unseen = obs.unseen()

    def log_weight(game: Game) -> float:
        return float(shape_features(obs, game.hands, unseen) @ SHAPE)

    return kept_by_weight(obs, beliefs, rng, log_weight)


DRAWERS: dict[str, Drawer] = {
    "shipped": drawn,
    "known": known,
    "discards": discards,
    "ratio": ratio,
    "shape": shape,
    "known-next": one_known(0),
    "known-after": one_known(1),
    "known-discards": known_on_discards,
    **{f"noisy-{p}": noisy(p / 100) for p in (10, 25, 50)},
    **{f"judged-{n}": judged(n) for n in (8, 64)},
}
"""How each mode draws a sample's game."""
MODES: dict[str, Rollout] = {
    m: SHIPPED if m == "shipped" else played_on(d) for m, d in DRAWERS.items()
}
"""Each mode's sample, as the race calls it (``shipped`` drawn and played in one call to the
native core, the same game as :func:`drawn` draws)."""


def overlaps(modes: Sequence[str], hands: int, seed: int) -> None:
    """Prints the share of the others' hand cards each mode's deals place right, at a fifth of
    the decisions with a choice of ``hands`` hands of greedy self-play."""
    rng = random.Random(seed)
    greedy = GreedyBot()
    right = dict.fromkeys(modes, 0)
    cards = decisions = 0
    for hand in range(hands):
        game = Game(dealer=hand % 3, deck=deal_deck(seed, hand))
        while (seat := game.to_act) is not None:
            if len(game.legal_actions()) > 1 and rng.random() < 0.2:
                obs = observe(game, seat)
                TRUE[:] = [game]
                decisions += 1
                cards += sum(sum(h) for s, h in enumerate(game.hands) if s != seat)
                for m in modes:
                    right[m] += overlap(obs, DRAWERS[m](obs, Beliefs(obs), rng))
            game.apply(greedy.game_act(game))
    print(f"the others' hand cards placed right, {decisions} decisions of {hands} hands")
    for m in modes:
        print(f"{m:>14}: {right[m] / cards:.1%}")


def setup(theta: Array, shape: Array, choices: int, eps: float) -> None:
    global THETA, SHAPE, CHOICES, EPS
    THETA, SHAPE, CHOICES, EPS = theta, shape, choices, eps


def play(mode: str, seed: int, deal: int, samples: int) -> tuple[str, int, float]:
    """The searching bot's points a hand over the deal's three seatings."""
    # what the race calls for each sample (a module global, read at each call)
    vars(expert_module)["sampled_rollout"] = MODES[mode]
    total = 0
    for me in range(3):
        bots = [make_bot("greedy") for _ in range(3)]
        bots[me] = make_bot(f"learned@{samples}", seed=deal * 3 + me)
        game = Game(dealer=deal % 3, deck=deal_deck(seed, deal))
        while (seat := game.to_act) is not None:
            if seat == me:
                TRUE[:] = [game]
            game.apply(bots[seat].act(observe(game, seat)))
        assert game.result is not None
        total += game.result.payments[me]
    return mode, deal, total / 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=9100)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--modes", default="shipped,known,discards,ratio,shape")
    parser.add_argument("--choices", type=int, default=8)
    parser.add_argument("--eps", type=float, default=0.33)
    parser.add_argument("--fit-hands", type=int, default=5000)
    parser.add_argument("--fit-seed", type=int, default=31)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--overlap",
        type=int,
        default=0,
        metavar="HANDS",
        help="print how many of the others' hand cards each mode's deals place right, "
        "over HANDS hands of greedy self-play, instead of playing",
    )
    args = parser.parse_args()
    modes = args.modes.split(",")
    if unknown := [m for m in modes if m not in MODES]:
        parser.error(f"unknown modes: {', '.join(unknown)} (choose from {', '.join(MODES)})")
    if args.deals < 2 or args.samples < 1 or args.choices < 1 or not 0 < args.eps <= 1:
        parser.error("--deals 2 or more, --samples and --choices 1 or more, --eps in (0, 1]")
    if args.overlap < 0:
        parser.error("--overlap: a number of hands, 0 or more")
    theta, shaped = np.zeros(0), np.zeros(0)
    if "ratio" in modes:
        theta = fit("ratio", args.fit_hands, args.fit_seed, ratio_row)
    if "shape" in modes:
        shaped = fit("shape", args.fit_hands, args.fit_seed, shape_row)
    if args.overlap:
        setup(theta, shaped, args.choices, args.eps)
        overlaps(modes, args.overlap, args.seed)
        return
    found: dict[str, dict[int, float]] = {m: {} for m in modes}
    started = last = time.monotonic()
    tasks = len(modes) * args.deals
    with ProcessPoolExecutor(
        args.workers, initializer=setup, initargs=(theta, shaped, args.choices, args.eps)
    ) as pool:
        futures = [
            pool.submit(play, m, args.seed, d, args.samples)
            for d in range(args.deals)
            for m in modes
        ]
        for done, future in enumerate(futures, 1):
            mode, deal, points = future.result()
            found[mode][deal] = points
            if time.monotonic() - last > 30 or done == tasks:
                last = time.monotonic()
                print(f"{done}/{tasks} in {last - started:.0f} s", file=sys.stderr)
    deals = range(args.deals)
    print(f"learned@{args.samples} beside two greedy bots, {args.deals} deals of seed {args.seed}")
    for mode in modes:
        mean, (low, high) = mean_ci([found[mode][d] for d in deals])
        line = f"{mode:>9}: {mean:+.2f} [{low:+.2f}, {high:+.2f}] a hand"
        if mode != "shipped" and "shipped" in modes:
            diff, (dl, dh) = mean_ci([found[mode][d] - found["shipped"][d] for d in deals])
            line += f"; − shipped {diff:+.2f} [{dl:+.2f}, {dh:+.2f}]"
        print(line)


if __name__ == "__main__":
    main()

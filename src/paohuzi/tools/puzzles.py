"""The puzzle harvester (issue 27 point 2, D148): self-played hands searched for decisions
where one move is clearly best.

Hand ``i`` of a harvest with seed ``s`` is dealt as the simulator deals it (seat ``i`` modulo
the seats deals, the deck shuffled from ``s`` and ``i``) and played by expert players
(``expert`` with :data:`PLAY_SAMPLES` samples a decision) on even hands and greedy players on
odd ones. At every decision with more than one outcome (moves that leave the seat's hand and
table alike count once, :func:`outcomes`), every outcome is played out on
:data:`SCREEN_SAMPLES` samples of the hidden cards by the expert's machinery (the sampler and
the native core's greedy rollouts, scored in points); a decision whose best move beats every
other by more than :data:`SCREEN_Z` paired standard errors and :data:`MIN_MARGIN` points is
measured again on :data:`CHECK_SAMPLES` fresh samples, and kept if it still does so by
:data:`CHECK_Z` standard errors. The kept puzzle states the re-check's numbers only.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from paohuzi.bots.expert import ExpertBot, paired
from paohuzi.bots.expert_v1 import ExpertV1Bot
from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.actions import HU, PASS, Action, ActionType, parse_action
from paohuzi.engine.cards import KIND_NAMES, to_counts
from paohuzi.engine.evaluator import Wait, prepare
from paohuzi.engine.game import Game
from paohuzi.engine.groups import PARTNERS
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.record import record_of
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.lessons import Text
from paohuzi.puzzles import Puzzle, load_puzzles

SCREEN_SAMPLES = 300
SCREEN_Z = 4.0
CHECK_SAMPLES = 2000
CHECK_Z = 3.0
MIN_MARGIN = 0.25
"""Points the best move must gain over the second: less is not worth a puzzle."""
PLAY_SAMPLES = 40
"""Samples a decision of the expert players of even hands."""
MAX_PER_HAND = 2
"""Puzzles kept from one hand at most: they are more alike than puzzles of different hands."""


@dataclass(frozen=True)
class Measured:
    """The outcomes of a decision played out on the same samples: mean points of each, and
    the best one's paired gain (with its standard error) over each other one."""

    moves: tuple[Action, ...]
    means: tuple[float, ...]
    best: int
    gains: tuple[tuple[float, float], ...]
    """Per move, the best move's (mean gain, standard error) over it; (0, 0) for the best."""
    samples: int

    @property
    def second(self) -> int:
        return max(
            (i for i in range(len(self.moves)) if i != self.best), key=self.means.__getitem__
        )

    def clear(self, z: float, margin: float = MIN_MARGIN) -> bool:
        """Whether the best move beats every other by more than ``z`` standard errors and by
        ``margin`` points at least."""
        return all(
            gain >= margin and gain > z * error
            for i, (gain, error) in enumerate(self.gains)
            if i != self.best
        )


def measure(obs: Observation, moves: Sequence[Action], samples: int, seed: int) -> Measured:
    """Every move played out on ``samples`` samples of what ``obs``'s seat cannot see (the
    same samples for every move), scored in points as the expert scores them."""
    rows = ExpertV1Bot(samples=samples).payments(obs, moves, seed=seed)
    n = len(rows[0])
    means = tuple(sum(row) / n for row in rows)
    best = max(range(len(moves)), key=means.__getitem__)
    gains = tuple(
        (0.0, 0.0) if i == best else paired(rows[best], row) for i, row in enumerate(rows)
    )
    return Measured(tuple(moves), means, best, gains, n)


def outcomes(game: Game, seat: int) -> list[list[Action]]:
    """The seat's legal moves grouped by what they leave: its hand and its table groups (a
    吃 with the same groups in another order is the same move). Each group sorted, the
    groups in the order of their first move's text."""
    found: dict[tuple[object, ...], list[Action]] = {}
    for action in sorted(game.legal_actions(), key=str):
        copy = game.clone()
        copy.apply(action)
        own = copy.seats[seat]
        key = (action.type, own.hand, tuple(sorted(str(g) for g in own.table)))
        found.setdefault(key, []).append(action)
    return list(found.values())


def theme_of(legal: Sequence[Action]) -> str:
    """The puzzle's theme from the choices it offers (D148)."""
    types = {a.type for a in legal}
    if ActionType.HU in types:
        return "hu"
    if ActionType.DISCARD in types:
        return "discard"
    if ActionType.CHI in types:
        return "chi"
    return "peng"


def move_words(action: Action) -> Text:
    """A move in words: Chinese, English."""
    if action.type is ActionType.DISCARD:
        assert action.card is not None
        name = KIND_NAMES[action.card]
        return Text(f"打 {name}", f"discard {name}")
    if action.type is ActionType.CHI:
        take, *bi = ("".join(KIND_NAMES[k] for k in g) for g in action.groups)
        if bi:
            return Text(
                f"吃 {take}（比 {' '.join(bi)}）", f"吃 (chi) {take}, 比 (bi) {' '.join(bi)}"
            )
        return Text(f"吃 {take}", f"吃 (chi) {take}")
    return {
        ActionType.PENG: Text("碰", "碰 (peng)"),
        ActionType.HU: Text("胡", "胡 (hu, win)"),
        ActionType.PASS: Text("过", "pass"),
    }[action.type]


def explain(puzzle: Puzzle) -> Text:
    """The solution in words, from the puzzle's numbers only (so the words can be rewritten
    without measuring again, ``paohuzi puzzles explain``): the means, the margin and its
    standard error, and what the best move does to the hand (the waits it leaves, the hu-xi
    it takes, the lone cards it keeps), and what the greedy bot would play."""
    game = puzzle.game()
    obs = observe(game, puzzle.seat)
    best, second = parse_action(puzzle.best), parse_action(puzzle.second)
    b, s = move_words(best), move_words(second)
    mean, other = puzzle.estimates[puzzle.best], puzzle.estimates[puzzle.second]
    gain, error, n = puzzle.margin, puzzle.margin_se, puzzle.samples
    zs = f"{gain / error:.1f}" if error > 0 else "∞"
    zh = (
        f"最好的一步是{b.zh}。把看不见的牌（别人的手牌和墩里的牌）随机发 {n} 次，"
        f"每次都打到结束，这一步平均得 {mean:+.2f} 分；次好的{s.zh}平均得 {other:+.2f} 分，"
        f"少 {gain:.2f} 分（标准误 {error:.2f}，差距是 {zs} 个标准误）。"
    )
    en = (
        f"The best move is {b.en}. Dealing the cards you cannot see (the other hands and the "
        f"wall) {n} times and playing each deal to the end, it scores {mean:+.2f} points on "
        f"average; the second best, {s.en}, scores {other:+.2f}: {gain:.2f} points less "
        f"(standard error {error:.2f}, {zs} standard errors)."
    )
    detail = _detail(game, obs, puzzle, best, second)
    zh, en = zh + detail.zh, en + " " + detail.en
    if puzzle.hard:
        g = move_words(parse_action(puzzle.greedy))
        zh += f"只看眼前的电脑（greedy）会{g.zh}。"
        en += f" The simple greedy bot would {g.en}."
    return Text(zh, en)


def lone_cards(hand: Sequence[int]) -> int:
    """Cards held alone with no partner in the hand for a sequence or a 绞 (no pair either):
    the cards the greedy bot counts as isolated."""
    return sum(1 for k, n in enumerate(hand) if n == 1 and not any(hand[p] for p in PARTNERS[k]))


def _after_discard(obs: Observation, card: int) -> tuple[list[int], list[Wait]]:
    cards = obs.hand_cards()
    cards.remove(card)
    return cards, prepare(cards, obs.own_table(), obs.rules).waits()


def _waits_words(waits: Sequence[Wait], unseen: Sequence[int]) -> Text:
    zh = "、".join(f"{KIND_NAMES[w.win]}（{w.huxi} 胡息）" for w in waits)
    en = ", ".join(f"{KIND_NAMES[w.win]} ({w.huxi} hu-xi)" for w in waits)
    live = sum(unseen[w.win] for w in waits)
    return Text(f"胡 {zh}，这些牌还有 {live} 张没见过", f"it wins on {en}, {live} of them unseen")


def _detail(game: Game, obs: Observation, puzzle: Puzzle, best: Action, second: Action) -> Text:
    """What the best move does to the hand, in a sentence or two."""
    huxi, waits = obs.hint()
    unseen = obs.unseen()
    means = puzzle.estimates
    if best == HU:
        waiting = max(m for a, m in means.items() if a != str(HU))
        return Text(
            f"现在胡稳得 {means[puzzle.best]:+.2f} 分，过了等更好的牌平均只有 {waiting:+.2f} 分。",
            f"Winning now pays {means[puzzle.best]:+.2f} for sure; passing to wait for a better "
            f"win averages {waiting:+.2f}.",
        )
    if str(HU) in means:
        now, move = means[str(HU)], move_words(best)
        return Text(
            f"现在胡只得 {now:+.2f} 分；先不胡（{move.zh}），平均能胡得更大。",
            f"Winning now pays only {now:+.2f}; not winning yet ({move.en}) and waiting for a "
            "bigger win is worth more on average.",
        )
    if best.type is ActionType.DISCARD:
        assert best.card is not None
        cards, after = _after_discard(obs, best.card)
        if after:
            w = _waits_words(after, unseen)
            return Text(f"打了它就听牌：{w.zh}。", f"After it your hand is ready (听牌): {w.en}.")
        kept = lone_cards(to_counts(cards))
        text = Text(
            f"打了它手里还有 {huxi} 胡息，剩 {kept} 张单张（没有对子、也连不成句）",
            f"After it your hand counts {huxi} hu-xi and keeps {kept} lone cards (no pair, "
            "no partner for a sequence)",
        )
        if second.type is ActionType.DISCARD:
            assert second.card is not None
            other = lone_cards(to_counts(_after_discard(obs, second.card)[0]))
            return Text(
                f"{text.zh}；打{KIND_NAMES[second.card]}会剩 {other} 张。",
                f"{text.en}; discarding {KIND_NAMES[second.card]} would keep {other}.",
            )
        return Text(text.zh + "。", text.en + ".")
    if best == PASS:
        if waits:
            w = _waits_words(waits, unseen)
            return Text(
                f"不要：你的手牌已经听牌（{w.zh}），拿了这张牌要拆开它。",
                f"Leave it: your hand is ready (听牌) as it is ({w.en}); taking the card "
                "would break it up.",
            )
        return Text(
            f"不要：手牌保持 {huxi} 胡息不动；每一种拿法平均都更差。",
            f"Leave it: your hand keeps its {huxi} hu-xi; every way of taking the card scores "
            "less on average.",
        )
    copy = game.clone()
    copy.apply(best)
    after_obs = observe(copy, puzzle.seat, events=False)
    taken, _ = after_obs.hint()
    change = (
        Text(f"拿了它胡息还是 {huxi}", f"Taking it keeps your hu-xi at {huxi}")
        if taken == huxi
        else Text(
            f"拿了它，胡息从 {huxi} 变成 {taken}",
            f"Taking it changes your hu-xi from {huxi} to {taken}",
        )
    )
    follow = [a for a in after_obs.legal if a.type is ActionType.DISCARD]
    ready = []
    for action in follow:
        assert action.card is not None
        found = _after_discard(after_obs, action.card)[1]
        if found:
            ready.append((sum(after_obs.unseen()[w.win] for w in found), action.card, found))
    if ready:
        _, card, found = max(ready, key=lambda r: (r[0], -r[1]))
        w = _waits_words(found, after_obs.unseen())
        return Text(
            f"{change.zh}，再打 {KIND_NAMES[card]} 就听牌：{w.zh}。",
            f"{change.en}, and discarding {KIND_NAMES[card]} next leaves it ready (听牌): {w.en}.",
        )
    return Text(change.zh + "。", change.en + ".")


def decision_seed(seed: int, hand: int, index: int, check: bool) -> int:
    """The sample seed of a decision's screen or re-check: fixed by where it is, different
    for the two."""
    return random.Random(f"{seed}/{hand}/{index}/{int(check)}").randrange(2**32)


def players(seed: int, hand: int, rules: RuleSet) -> list[ExpertBot | GreedyBot]:
    """Expert players on even hands, greedy ones on odd hands."""
    if hand % 2:
        return [GreedyBot() for _ in range(rules.players)]
    return [
        ExpertBot(seed * 7_919 + hand * 4 + s, samples=PLAY_SAMPLES) for s in range(rules.players)
    ]


def harvest_hand(
    seed: int,
    hand: int,
    rules: RuleSet = HUNAN,
    *,
    screen: int = SCREEN_SAMPLES,
    check: int = CHECK_SAMPLES,
) -> list[Puzzle]:
    """The puzzles of one self-played hand: every decision is screened, and of those that
    pass, the ones the greedy bot gets wrong first, then the rest in a shuffled order fixed by
    the hand, are re-checked until :data:`MAX_PER_HAND` are kept (a hand's puzzles come
    from all through it, not just its first turns). In the order they arise."""
    game = Game(rules, dealer=hand % rules.players, seed=seed * 1_000_003 + hand)
    bots = players(seed, hand, rules)
    greedy = GreedyBot()
    passed: list[Screened] = []
    index = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        obs = observe(game, seat)
        if len(obs.legal) > 1:
            groups = outcomes(game, seat)
            if len(groups) > 1:
                moves = [g[0] for g in groups]
                first = measure(obs, moves, screen, decision_seed(seed, hand, index, False))
                if first.clear(SCREEN_Z):
                    choice = greedy.act(obs)
                    hard = choice not in groups[first.best]
                    passed.append(Screened(index, game.clone(), obs, groups, first, choice, hard))
        game.apply(bots[seat].act(obs))
        index += 1
    order = random.Random(f"{seed}/{hand}").sample(passed, len(passed))
    order.sort(key=lambda s: not s.hard)
    kept: list[Puzzle] = []
    for screened in order:
        if len(kept) == MAX_PER_HAND:
            break
        found = _puzzle(screened, seed, hand, check)
        if found is not None:
            kept.append(found)
    return sorted(kept, key=lambda p: int(p.id.rsplit("-", 1)[1]))


@dataclass(frozen=True)
class Screened:
    """A decision that passed the screen, kept for its re-check."""

    index: int
    game: Game
    obs: Observation
    groups: list[list[Action]]
    first: Measured
    greedy: Action
    hard: bool


def _puzzle(screened: Screened, seed: int, hand: int, check: int) -> Puzzle | None:
    """The puzzle of a screened decision if the re-check on fresh samples confirms it."""
    game, obs, groups = screened.game, screened.obs, screened.groups
    checked = decision_seed(seed, hand, screened.index, True)
    found = measure(obs, [g[0] for g in groups], check, checked)
    if found.best != screened.first.best or not found.clear(CHECK_Z):
        return None
    assert obs.seat is not None
    best = found.moves[found.best]
    gain, error = found.gains[found.second]
    puzzle = Puzzle(
        id=f"{seed}-{hand}-{screened.index}",
        theme=theme_of(obs.legal),
        record=record_of(game),
        seat=obs.seat,
        best=str(best),
        accept=tuple(str(a) for a in groups[found.best][1:]),
        second=str(found.moves[found.second]),
        margin=round(gain, 3),
        margin_se=round(error, 3),
        samples=found.samples,
        seed=checked,
        estimates={str(m): round(v, 3) for m, v in zip(found.moves, found.means, strict=True)},
        greedy=str(screened.greedy),
        explanation=Text("", ""),
    )
    return dataclasses.replace(puzzle, explanation=explain(puzzle))


def done_hands(progress: Path) -> set[tuple[int, int]]:
    """The (seed, hand) pairs a harvest has finished, from its progress file."""
    if not progress.exists():
        return set()
    found = set()
    for line in progress.read_text(encoding="utf-8").split():
        seed, _, hand = line.partition("/")
        found.add((int(seed), int(hand)))
    return found


def harvest(
    out: Path,
    seed: int,
    hands: range,
    *,
    limit: int | None = None,
    theme_limit: int | None = None,
    screen: int = SCREEN_SAMPLES,
    check: int = CHECK_SAMPLES,
) -> Iterator[Puzzle]:
    """Harvest hands ``hands`` of seed ``seed``, appending each puzzle to ``out`` (JSON lines)
    as it is found and each finished hand to ``out``'s progress file (``out`` + ``.done``), so
    that a harvest stopped at any moment resumes where it was: finished hands are skipped and
    a puzzle already in ``out`` is not written again. Stops once ``out`` holds ``limit``
    puzzles; a theme with ``theme_limit`` puzzles takes no more. Yields the new puzzles."""
    progress = Path(f"{out}.done")
    have = load_puzzles(out) if out.exists() else []
    ids = {p.id for p in have}
    per_theme: dict[str, int] = {}
    for p in have:
        per_theme[p.theme] = per_theme.get(p.theme, 0) + 1
    finished = done_hands(progress)
    for hand in hands:
        if limit is not None and len(ids) >= limit:
            return
        if (seed, hand) in finished:
            continue
        for puzzle in harvest_hand(seed, hand, screen=screen, check=check):
            full = theme_limit is not None and per_theme.get(puzzle.theme, 0) >= theme_limit
            if puzzle.id in ids or full:
                continue
            with out.open("a", encoding="utf-8") as file:
                file.write(json.dumps(puzzle.to_json(), ensure_ascii=False) + "\n")
            ids.add(puzzle.id)
            per_theme[puzzle.theme] = per_theme.get(puzzle.theme, 0) + 1
            yield puzzle
        with progress.open("a", encoding="utf-8") as file:
            file.write(f"{seed}/{hand}\n")

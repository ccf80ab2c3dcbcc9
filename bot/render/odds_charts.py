"""What each system's odds chart shows, built from the same exact odds as its text reply.

docs/players/index.md, "Odds charts": a chart answers the query it was asked. Cosmos charts totals
by outcome; Sinew the kept die's faces and, against ``vs_score``, the opposed roll's three results;
Six-pool each face by its degree (all six); Aethelgard the shown nets with the fumble a bar of its
own; Realms a check's die, or an attack's damage with a panel for each target of a split. Each
builder returns a pure ``ChartSpec`` / ``ChartSheet`` that tests compare with the text.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from bot.render.charts import OUTCOME_COLOURS, Bar, ChartSheet, ChartSpec, Kind, chart_spec
from bot.render.cosmos import describe_pool
from bot.render.grammar import plural
from bot.render.numbers import chance_floats, percent
from bot.render.sinew import mode_text
from bot.render.sixpool import dc_text
from rules.aethelgard import CRITICAL_NET
from rules.aethelgard import RollOdds as AethelgardOdds
from rules.cosmos import CosmosOdds
from rules.odds import Distribution, Outcome
from rules.realms import AttackOdds
from rules.sinew import OpposedOdds, TestOdds
from rules.sixpool import DIE_SIDES, Degree
from rules.sixpool import RollOdds as SixpoolOdds

__all__ = [
    "DEGREE_KINDS",
    "FUMBLE",
    "aethelgard_chart",
    "attack_chart",
    "check_chart",
    "cosmos_chart",
    "sinew_chart",
    "sixpool_chart",
]

GREEN, GREY = OUTCOME_COLOURS[Outcome.SUCCESS], OUTCOME_COLOURS[Outcome.FAILURE]
GOLD, RED = OUTCOME_COLOURS[Outcome.CRITICAL_SUCCESS], OUTCOME_COLOURS[Outcome.CRITICAL_FAILURE]
DARK_GREEN, ORANGE = "#1f8b4c", "#e67e22"


def _share(chance: Fraction) -> float:
    """Return an exact chance as the bar's percent (one correctly rounded integer division,
    no intermediate Fraction: a Realms chart has hundreds of 200-bit ones)."""
    return chance.numerator * 100 / chance.denominator


# --- Cosmos


def cosmos_chart(result: CosmosOdds) -> ChartSpec:
    """Chart a roll's totals, each coloured by its outcome, with the TN marked."""
    return chart_spec(
        result.totals,
        result.outcomes,  # bars coloured by the rule that gives result.success
        title=f"Totals: {describe_pool(result.pool)} + {result.attribute + result.skill}",
        marker=result.tn,
        marker_label=f"TN {result.tn}",
    )


# --- Sinew & Steel

_OPPOSED = (
    ("You succeed,\nthey fail", Kind("You succeed, they fail", GREEN, 0, legend=False)),
    ("Both succeed, your\nmargin larger", Kind("Your margin larger", DARK_GREEN, 1, legend=False)),
    ("Defender wins\n(ties included)", Kind("Defender wins", GREY, 2, legend=False)),
)


def sinew_chart(result: TestOdds, versus: OpposedOdds | None) -> ChartSpec | ChartSheet:
    """Chart the kept die's faces; against an opposing score, the opposed roll's results too.

    The faces left of the marker succeed (roll under or equal to the score).
    """
    mode = mode_text(result.mode)
    test = chart_spec(
        result.rolls,
        result.outcomes,
        title=f"d20 under {result.score}: {mode}",
        marker=result.score + 1,
        marker_label=f"score {result.score}",
        x_label="Kept d20 face",
    )
    if versus is None:
        return test
    chances = (versus.attacker_only_succeeds, versus.attacker_wins_on_margin, versus.defender_wins)
    bars = tuple(
        Bar(index, _share(chance), None, kind=kind, label=label, note=percent(chance))
        for index, (chance, (label, kind)) in enumerate(zip(chances, _OPPOSED, strict=True))
    )
    opposed = ChartSpec(
        title=f"Opposed vs score {versus.defender_score}: you win {percent(versus.attacker_wins)}",
        bars=bars,
        x_label="",
    )
    return ChartSheet(
        title=f"Odds: d20 under {result.score} vs score {versus.defender_score}",
        panels=(replace(test, title=f"Your test ({mode})"), opposed),
        headline=f"{test.headline} · opposed: you win {percent(versus.attacker_wins)}",
    )


# --- Six-pool d20

DEGREE_KINDS = {
    Degree.CRITICAL_SUCCESS: Kind("Critical success", GOLD, 0),
    Degree.STRONG_SUCCESS: Kind("Strong success", DARK_GREEN, 1),
    Degree.SUCCESS: Kind("Success", GREEN, 2),
    Degree.FAILURE: Kind("Failure", GREY, 3),
    Degree.BAD_FAILURE: Kind("Bad failure", ORANGE, 4),
    Degree.CRITICAL_FAILURE: Kind("Critical failure", RED, 5),
}
"""One colour per degree of success, legend labels as the text writes them."""


def sixpool_chart(result: SixpoolOdds) -> ChartSpec:
    """Chart each face of the kept d20 coloured by its degree (the six the text lists)."""
    needed = result.dc - result.modifier
    bars = tuple(
        Bar(face, share, outcome, kind=DEGREE_KINDS[found])
        for face, share, outcome, found in zip(
            result.rolls.outcomes().tolist(),
            (result.rolls.probabilities() * 100).tolist(),
            result.outcomes,
            result.face_degrees,
            strict=True,
        )
    )
    return ChartSpec(
        title=f"Kept d20: {result.modifier:+d} vs {dc_text(result.dc)}, {result.mode.value}",
        bars=bars,
        headline=f"Success {percent(result.success)}",
        marker=max(1, min(needed, DIE_SIDES)),
        marker_label=f"needs {needed}",
        x_label="Kept d20 face (before the modifier)",
    )


# --- Aethelgard

FUMBLE = Kind("Fumble", RED, 4)
FUMBLE_AT = -2
"""Where the fumble's bar stands: apart, left of net 0 (which no longer counts it)."""


def _net_outcome(net: int, dc: int) -> Outcome:
    """How a shown net that is not a fumble counts against ``dc``."""
    if net < dc:
        return Outcome.FAILURE
    return Outcome.CRITICAL_SUCCESS if net >= CRITICAL_NET else Outcome.SUCCESS


def aethelgard_chart(result: AethelgardOdds) -> ChartSpec:
    """Chart the shown nets, with the fumble (shown as net 0 in play) a bar of its own."""
    bars = [Bar(FUMBLE_AT, _share(result.fumble), None, kind=FUMBLE, label="Fumble")]
    for net, chance in result.shown.items():
        plain = chance - result.fumble if net == 0 else chance
        bars.append(Bar(net, _share(plain), _net_outcome(net, result.dc)))
    return ChartSpec(
        title=f"Net successes of {result.dice}d10 vs DC {result.dc}",
        bars=tuple(bars),
        headline=f"Success {percent(result.success)} · fumble {percent(result.fumble)}",
        marker=result.dc,
        marker_label=f"DC {result.dc}",
        x_label="Net successes (a fumble apart)",
    )


# --- Enchanted Realms

NO_DAMAGE = Kind("No damage", GREY, 0)
DAMAGE = Kind("Damage", GREEN, 1)


def check_chart(faces: Distribution, die_title: str, target: int) -> ChartSpec:
    """Chart a single-die roll's results, those reaching ``target`` in green."""
    outcomes = [Outcome.SUCCESS if v >= target else Outcome.FAILURE for v in faces.outcomes()]
    return chart_spec(
        faces,
        outcomes,
        title=die_title,
        marker=target,
        marker_label=f"target {target}",
        x_label="Die result",
    )


def _targets(numbers: list[int]) -> str:
    if len(numbers) == 1:
        return f"Target {numbers[0]}"
    return "Targets " + ", ".join(map(str, numbers))


def attack_chart(result: AttackOdds, dice: int, to_hit: int, damage: str) -> ChartSpec | ChartSheet:
    """Chart each target's damage: one panel per target, or per group of targets with the same
    strikes (their damage is the same distribution)."""
    groups: dict[int, list[int]] = {}
    for number, target in enumerate(result.targets, start=1):
        groups.setdefault(target.strikes, []).append(number)
    panels = []
    for strikes, numbers in groups.items():
        target = result.targets[numbers[0] - 1]
        each = " each" if len(numbers) > 1 else ""
        bars = tuple(  # the chances as floats: no Fraction for each of a thousand bars
            Bar(value, chance * 100, None, DAMAGE if value else NO_DAMAGE)
            for value, chance in chance_floats(target.damage)
        )
        panels.append(
            ChartSpec(
                title=f"{_targets(numbers)}: {plural(strikes, 'strike')}{each}"
                f" · missed {percent(target.missed)}",
                bars=bars,
                x_label="Damage",
            )
        )
    title = f"Damage: {dice}d20 to hit {to_hit}, {damage}"
    if len(panels) == 1:
        return replace(panels[0], title=title, headline=panels[0].title)
    return ChartSheet(title=title, panels=tuple(panels))

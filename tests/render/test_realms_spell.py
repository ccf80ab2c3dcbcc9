"""`/realms spell` says what the spell costs at its state, why, and that nothing is rolled
(docs/players/realms.md, "Rules notes"): every expected reply written by hand."""

from __future__ import annotations

from bot.render.realms import spell
from rules.realms import SpellKind, decide
from rules.realms import spell as cast

NO_DICE = (
    "🎲 No dice: a spell isn't rolled. Advantage or disadvantage changes what it costs instead "
    "(an incantation's spirit, an axiom's oversiphoning or casting time)."
)


def test_a_plain_incantation_says_its_cost_once_and_that_nothing_is_rolled() -> None:
    embed = spell(cast(SpellKind.INCANTATION, decide(0, 0), 2), "Pip")
    assert embed.title == "✨ Pip: incantation · spirit cost 2"
    assert embed.description == (
        "**Spirit cost 2**: paid as it is, at neither advantage nor disadvantage.\n" + NO_DICE
    )


def test_an_incantation_at_advantage_or_disadvantage_says_why_its_cost_moved() -> None:
    cheaper = spell(cast(SpellKind.INCANTATION, decide(1, 0), 2), "Pip")
    assert cheaper.title == "✨ Pip: incantation · spirit cost 1"
    assert cheaper.description == (
        "**Advantage**: 1 advantage → at advantage\n"
        "**Spirit cost 2 → 1**: advantage takes 1 off an incantation's spirit cost "
        "(never below 0).\n" + NO_DICE
    )
    dearer = spell(cast(SpellKind.INCANTATION, decide(0, 1), 2), "Pip")
    assert dearer.description == (
        "**Disadvantage**: 1 disadvantage → at disadvantage; half movement this round\n"
        "**Spirit cost 2 → 3**: disadvantage adds 1 to an incantation's spirit cost.\n" + NO_DICE
    )
    cancelled = spell(cast(SpellKind.INCANTATION, decide(1, 1), 2), "Pip")
    assert cancelled.description == (
        "**Normal**: 1 advantage + 1 disadvantage → straight roll (any mix cancels)\n"
        "**Spirit cost 2**: paid as it is, at neither advantage nor disadvantage.\n" + NO_DICE
    )


def test_an_axiom_says_what_its_state_does_to_it() -> None:
    plain = spell(cast(SpellKind.AXIOM, decide(0, 0)), "Pip")
    assert plain.title == "✨ Pip: axiom"
    assert plain.description == (
        "**Cast as normal**: neither advantage nor disadvantage changes an axiom.\n" + NO_DICE
    )
    better = spell(cast(SpellKind.AXIOM, decide(1, 0)), "Pip").description or ""
    assert better.splitlines()[1] == (
        "**Lowest oversiphoning at normal cost**: advantage lets an axiom take its lowest "
        "oversiphoning at the normal cost."
    )
    worse = spell(cast(SpellKind.AXIOM, decide(0, 1)), "Pip").description or ""
    assert worse.splitlines()[1] == (
        "**Casting time doubled**: disadvantage doubles an axiom's casting time."
    )

"""Characters that forgive mistakes: edit, rename, delete and give, shared by every system with
characters (docs/players/sinew.md and docs/players/aethelgard.md, "Characters forgive mistakes").

A system's cog keeps one ``CharacterAdmin`` on its character store and its commands hand their
options to it: the system decides what an edit does to its sheet (a pure rule), the rest is
the same everywhere.

- **edit**: the owner, until the character's first roll, within the system's creation rules;
  a GM at any time within the rails, announced ("GM changed Ana: STR 12 → 13").
- **rename**: the owner or a GM; names stay unique in the campaign; announced.
- **delete**: the owner or a GM, confirmed with a button (``DeletePrompt``, as `/campaign end`
  asks: everything in its custom id, so any process answers it; it expires); announced. Its
  rolls stay in the log under its name.
- **give**: a GM, to a player who has fewer characters than the system allows; announced.

Each is one transaction, which reads the character as stored now: who owns it and whether
it has rolled are decided there, not from what the command read before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import discord

from bot.access import storage_of
from bot.asker import Asker, gms_to_ask
from bot.buttons import answer_component
from bot.errors import CommandError
from bot.options import ID_PATTERN, character_name, stored_id
from bot.publish import announce
from bot.render import characters as render
from bot.storage import Campaign, Character, CharacterStore, Storage
from bot.storage.errors import CannotSave, EndAnswer, EndPromptAnswered
from rules.sheets import SheetEdit
from rules.systems import System

__all__ = ["CONFIRM_TIMEOUT_SECONDS", "CharacterAdmin", "DeleteButton", "DeletePrompt"]

S = TypeVar("S")
CONFIRM_TIMEOUT_SECONDS = 120  # as long as `/campaign end` waits

# ``creation``: the owner's edit before the first roll (the creation rules hold), else a GM's.
SheetEditor = Callable[[S, bool], SheetEdit[S]]


class _Unread:
    """A sheet codec that reads nothing: deleting a character never needs its system's sheet,
    so a delete button is answered whatever system the character is of."""

    def load(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        return data

    def dump(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return json.loads(json.dumps(sheet))


def owner_or_gm(asker: Asker, action: str) -> Callable[[Character[Any]], None]:
    """A check, in the transaction, that the asker owns the character or is a GM."""

    def check(character: Character[Any]) -> None:
        if character.user_id != asker.user_id:
            asker.require_gm(f"{action} another player's character")

    return check


@dataclass(frozen=True, slots=True)
class DeletePrompt:
    """A delete confirmation: all of it in its buttons' custom ids, so any process of the bot
    answers a click, before or after a restart (as `/campaign end`'s prompt)."""

    prompt_id: int  # the interaction that asked
    character_id: int
    requester_id: int  # only they may answer
    deadline: int  # Unix seconds; a click after it is refused

    def view(self) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        view.add_item(DeleteButton(self, deletes=True))
        view.add_item(DeleteButton(self, deletes=False))
        view.stop()  # discord.py keeps no view per prompt: the dynamic item answers each click
        return view


class DeleteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"chardel:(?P<choice>delete|keep):(?P<prompt>{ID_PATTERN}):(?P<character>{ID_PATTERN})"
    rf":(?P<requester>{ID_PATTERN}):(?P<deadline>[0-9]{{1,11}})",
):
    """Delete / Keep under a character delete prompt (persistent)."""

    def __init__(self, prompt: DeletePrompt, *, deletes: bool) -> None:
        choice = "delete" if deletes else "keep"
        super().__init__(
            discord.ui.Button(
                label="Delete" if deletes else "Keep",
                style=discord.ButtonStyle.danger if deletes else discord.ButtonStyle.secondary,
                custom_id=f"chardel:{choice}:{prompt.prompt_id}:{prompt.character_id}"
                f":{prompt.requester_id}:{prompt.deadline}",
            )
        )
        self.prompt, self.deletes = prompt, deletes

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DeleteButton:
        prompt = DeletePrompt(
            int(match["prompt"]), int(match["character"]), int(match["requester"]),
            int(match["deadline"]),
        )  # fmt: skip
        return cls(prompt, deletes=match["choice"] == "delete")

    async def callback(self, interaction: discord.Interaction) -> None:
        async def press() -> None:
            for value, kind in ((self.prompt.prompt_id, "prompt"),
                                (self.prompt.character_id, "character"),
                                (self.prompt.requester_id, "member")):  # fmt: skip
                stored_id(value, kind)
            await answer_delete(interaction, self.prompt, deletes=self.deletes)

        await answer_component(interaction, press)


async def answer_delete(
    interaction: discord.Interaction, prompt: DeletePrompt, *, deletes: bool
) -> None:
    """A click on a delete prompt: the asker's first answer stands (kept with the prompt's id,
    as `/campaign end`'s). Delete before the deadline deletes (still the owner or a GM then)
    and the table hears it; Keep, or a click after the deadline, deletes nothing."""
    if interaction.user.id != prompt.requester_id:
        raise CommandError("Only who asked can confirm this.")
    storage = storage_of(interaction)
    try:
        if deletes and time.time() <= prompt.deadline:
            await _delete(interaction, storage, prompt)
            return
        answer = EndAnswer.KEPT if not deletes else EndAnswer.EXPIRED
        await storage.campaigns.answer_end_prompt(prompt.prompt_id, answer)
    except EndPromptAnswered as answered:
        raise CommandError(render.delete_answered_before(answered.answer)) from None
    await interaction.response.edit_message(content=render.DELETE_ANSWERS[answer], view=None)


async def _delete(interaction: discord.Interaction, storage: Storage, prompt: DeletePrompt) -> None:
    asker = await Asker.of(interaction, storage)
    campaign = asker.require_campaign()
    store: CharacterStore[Mapping[str, Any]] = CharacterStore(storage.database, _Unread())
    check = owner_or_gm(asker, "delete")
    deleted = await store.delete_character(campaign, prompt.character_id, check, prompt.prompt_id)
    await interaction.response.edit_message(
        content=render.DELETE_ANSWERS[EndAnswer.ENDED], view=None
    )
    await announce(interaction, content=render.character_deleted(deleted.name, asker.user_id))


class CharacterAdmin(Generic[S]):
    """Edit, rename, delete and give one system's characters (see the module's docstring)."""

    def __init__(self, storage: Storage, system: System, store: CharacterStore[S]) -> None:
        self.storage, self.system, self.store = storage, system, store
        self._expiries: set[asyncio.Task[None]] = set()

    async def _table(self, interaction: discord.Interaction) -> tuple[Asker, Campaign]:
        asker = await Asker.of(interaction, self.storage)
        return asker, asker.require_campaign(self.system)

    async def _own_or_named(
        self, interaction: discord.Interaction, name: str | None, action: str
    ) -> tuple[Asker, Campaign, Character[S]]:
        """The asker, their campaign, and their character or the one named: another player's
        only for a GM (checked again in the transaction, as the character is then)."""
        asker, campaign = await self._table(interaction)
        if name is None:
            return asker, campaign, await self.store.find(campaign, user_id=asker.user_id)
        found = await self.store.find(campaign, name=name)
        owner_or_gm(asker, action)(found)
        return asker, campaign, found

    async def edit(
        self, interaction: discord.Interaction, character: str | None, editor: SheetEditor[S]
    ) -> None:
        """Edit a sheet: its owner's before its first roll (creation rules), a GM's at any
        time (the rails), announced."""
        asker, campaign, found = await self._own_or_named(interaction, character, "edit")
        edits: list[SheetEdit[S]] = []

        def decide(now: Character[S]) -> S:
            if not asker.is_gm:
                owner_or_gm(asker, "edit")(now)
                if now.rolled:
                    raise CommandError(render.owner_edits_over(now.name, gms_to_ask(campaign)))
            edits.append(editor(now.sheet, not asker.is_gm))
            return edits[-1].sheet

        changed = await self.store.edit_character(found, decide)
        if asker.is_gm:
            text = render.edited_by_gm(changed.after.name, edits[-1].text)
        else:
            text = render.edited_by_owner(changed.after.name, edits[-1].text)
        await interaction.response.send_message(text)

    async def rename(
        self, interaction: discord.Interaction, character: str | None, new_name: str
    ) -> None:
        """Rename a character (the owner or a GM), announced."""
        asker, _, found = await self._own_or_named(interaction, character, "rename")
        name = character_name(new_name)
        changed = await self.store.rename_character(found, name, owner_or_gm(asker, "rename"))
        await interaction.response.send_message(
            render.character_renamed(changed.before.name, changed.after.name, asker.user_id)
        )

    async def give(
        self, interaction: discord.Interaction, character: str, user: discord.abc.User
    ) -> None:
        """Give a character to another player (a GM), announced."""
        asker, campaign = await self._table(interaction)
        asker.require_gm("give a character to another player")
        found = await self.store.find(campaign, name=character)
        changed = await self.store.give_character(campaign, found, user.id)
        await interaction.response.send_message(
            render.character_given(
                found.name, changed.before.user_id, changed.after.user_id, asker.user_id
            )
        )

    async def ask_delete(self, interaction: discord.Interaction, character: str | None) -> None:
        """Ask the owner or a GM to confirm deleting a character, privately, with buttons that
        expire."""
        asker, _, found = await self._own_or_named(interaction, character, "delete")
        deadline = math.ceil(time.time() + CONFIRM_TIMEOUT_SECONDS)
        prompt = DeletePrompt(interaction.id, found.id, asker.user_id, deadline)
        await interaction.response.send_message(
            render.delete_prompt(found.name), view=prompt.view(), ephemeral=True
        )
        expiry = asyncio.create_task(
            _expire(self.storage, interaction, prompt), name="delete-prompt-expiry"
        )
        self._expiries.add(expiry)
        expiry.add_done_callback(self._expiries.discard)

    def close(self) -> None:
        """Stop waiting for prompts' deadlines (the cog unloads: the deadline in each prompt's
        buttons still holds)."""
        for expiry in self._expiries:
            expiry.cancel()


async def _expire(storage: Storage, asked: discord.Interaction, prompt: DeletePrompt) -> None:
    """At the deadline, an unanswered prompt loses its buttons (a click would only be refused)."""
    await asyncio.sleep(max(0.0, prompt.deadline - time.time()))
    try:
        await storage.campaigns.answer_end_prompt(prompt.prompt_id, EndAnswer.EXPIRED)
    except (EndPromptAnswered, CannotSave):
        return  # answered in time; or not saved, and a late click still finds the deadline
    with contextlib.suppress(discord.HTTPException):
        await asked.edit_original_response(
            content=render.DELETE_ANSWERS[EndAnswer.EXPIRED], view=None
        )

"""The message catalogues: every text marked in the code is in each language's catalogue,
translated, not fuzzy, with the same placeholders; and a notice comes out in the words given."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from bot.notify.languages import DEFAULT, LANGUAGES, LOCALE_DIR, catalogue_path, negotiate, words
from rules.core.errors import RulesError
from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import Ruleset
from rules.core.words import ENGLISH
from rules.stages.armageddon import parse_bid
from rules.stages.formats import stage_name
from rules.talk.armageddon import bid_sealed, knockout_repeat
from rules.talk.commands import CommandError, parse
from rules.talk.conduct import (
    UNFINISHED_AT_EXIT,
    awarded_after_exit,
    break_started,
    open_match_awarded,
    paired_again_after_exit,
)
from rules.talk.games import time_control_text
from rules.talk.notices import fit, pairing_published
from rules.talk.registration import REASONS, gone, read_back, reason, unreachable, window_closed
from rules.talk.room import no_such_match, result_recorded
from rules.week.calendar import label_duration, label_time, match_week
from rules.week.conduct import check_claim
from rules.week.negotiation import NegotiationError, make_offers, start_negotiation

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")

Key = tuple[str | None, str]


def _marked_in_the_code() -> set[Key]:
    """Every text of rules/ and bot/ marked for translation (babel.cfg, as scripts/messages)."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]
    found: set[Key] = set()
    for folder in ("rules", "bot"):
        for _file, _line, message, _comments, context in extract_from_dir(
            ROOT / folder, method_map, options_map
        ):
            found.add((context, message if isinstance(message, str) else message[0]))
    return found


MARKED = _marked_in_the_code()


def _texts(value: str | Sequence[str] | None) -> list[str]:
    """A catalogue entry's text, or its plural forms."""
    if value is None:
        return [""]
    return [value] if isinstance(value, str) else list(value)


OTHERS = sorted(set(LANGUAGES) - {DEFAULT})


def test_the_code_marks_texts_and_there_is_a_language_besides_english() -> None:
    assert len(MARKED) > 50
    assert OTHERS


@pytest.mark.parametrize("language", OTHERS)
def test_every_marked_text_is_translated_in_the_catalogue(language: str) -> None:
    with catalogue_path(language).open("rb") as po:
        catalogue = read_po(po, locale=language)
    entries = {
        (m.context, m.id if isinstance(m.id, str) else m.id[0]): m for m in catalogue if m.id
    }
    missing = sorted(MARKED - set(entries), key=str)
    assert not missing, f"not in the {language} catalogue (run scripts/messages): {missing}"
    stale = sorted(set(entries) - MARKED, key=str)
    assert not stale, f"in the {language} catalogue, no longer in the code: {stale}"
    fuzzy = [key for key, m in entries.items() if m.fuzzy]
    assert not fuzzy, f"fuzzy in the {language} catalogue: {fuzzy}"
    empty = [key for key, m in entries.items() if not all(_texts(m.string))]
    assert not empty, f"untranslated in the {language} catalogue: {empty}"
    for key, m in entries.items():
        ids, strings = _texts(m.id), _texts(m.string)
        wanted = {name for i in ids for name in PLACEHOLDER.findall(i)}
        for string in strings:
            assert set(PLACEHOLDER.findall(string)) == wanted, (key, string)


def test_a_language_not_offered_reads_english() -> None:
    assert words(None) is ENGLISH
    assert words(DEFAULT) is ENGLISH
    assert words("xx") is ENGLISH


def test_a_notice_comes_out_in_the_words_given() -> None:
    ruleset = Ruleset()
    week = match_week(dt.date(2021, 10, 12), ruleset)
    now = dt.datetime(2021, 10, 12, 9, tzinfo=dt.UTC)

    def notice(language: str | None) -> str:
        return pairing_published(
            match_id=MatchId(7),
            player=PlayerId("alice"),
            opponent=PlayerId("bob"),
            week=week,
            room_url="https://acwc.example/match/7",
            now=now,
            ruleset=ruleset,
            words=words(language),
        ).text

    english, french = notice(None), notice("fr")
    assert english.startswith("ACWC pairing: you play bob (match 7).")
    assert french.startswith("Appariement ACWC : vous jouez contre bob (match 7).")
    assert "Fri 15 Oct 23:59 UTC" in english
    assert "ven. 15 oct. 23:59 UTC" in french
    assert "https://acwc.example/match/7" in french
    # the times and durations in the reader's words, the plural as the language has it
    fr = words("fr")
    assert label_time(dt.datetime(2021, 5, 2, 8, 5, tzinfo=dt.UTC), fr) == "dim. 2 mai 08:05 UTC"
    assert label_duration(dt.timedelta(days=1, minutes=1), fr) == "1 jour 1 minute"
    assert label_duration(dt.timedelta(days=2, hours=3), fr) == "2 jours 3 heures"


def test_each_player_of_a_break_reads_it_in_their_own_words() -> None:
    until = dt.datetime(2021, 10, 14, 18, 10, tzinfo=dt.UTC)
    mine, theirs = break_started("alice", until=until, words=words("fr"))
    assert mine == (
        "Votre unique pause de ce match (règle 6.1) a commencé : la partie suivante doit "
        "commencer avant le jeu. 14 oct. 18:10 UTC."
    )
    assert theirs == (
        "alice called their one break (rules 6.1): the next game starts by "
        "Thu 14 Oct 18:10 UTC at the latest."
    )


def test_the_armageddon_s_replies_come_in_the_player_s_words() -> None:
    deadline = dt.datetime(2021, 11, 5, 18, tzinfo=dt.UTC)
    assert bid_sealed(210, deadline=deadline, words=words("fr")) == (
        "Votre enchère de 3:30 pour les Blancs est cachetée ; elle est révélée quand celle de "
        "votre adversaire arrive ou à l'échéance (ven. 5 nov. 18:00 UTC)."
    )
    assert bid_sealed(210, deadline=deadline) == (
        "Your time offer of 3:30 for White is sealed; it is revealed when your opponent's "
        "offer is in or the deadline passes (Fri 05 Nov 18:00 UTC)."
    )


def _pybabel(*args: str | Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "--quiet", *map(str, args)],
        cwd=ROOT,
        check=True,
    )


def test_running_scripts_messages_on_this_tree_changes_no_catalogue(tmp_path: Path) -> None:
    """What scripts/messages does, into a copy of the catalogues: every text of the code is
    in them as they are committed, and the header's dates stay as they are (no diff from
    regenerating an unchanged tree)."""
    template = tmp_path / "messages.pot"
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, copy)
    _pybabel(
        "extract", "-F", "babel.cfg", "--project=acwc-bot", "--no-wrap", "--add-location=file",
        "--sort-by-file", "-o", template, "rules", "bot",
    )  # fmt: skip
    script = (ROOT / "scripts" / "messages").read_text()
    assert "--ignore-pot-creation-date" in script
    _pybabel(
        "update", "--no-wrap", "--ignore-obsolete", "--ignore-pot-creation-date",
        "-i", template, "-d", copy, "-D", "messages",
    )  # fmt: skip
    for language in OTHERS:
        regenerated = (copy / language / "LC_MESSAGES" / "messages.po").read_text()
        assert regenerated == catalogue_path(language).read_text(), (
            f"scripts/messages changes the {language} catalogue: run it and translate"
        )


def test_an_exit_s_notices_come_in_the_reader_s_words() -> None:
    fr = words("fr")
    assert awarded_after_exit(7, 3, left="bob", why=UNFINISHED_AT_EXIT, words=fr) == (
        "Votre match de qualification 7 (ronde 3) vous est attribué : bob a quitté le "
        "championnat (règle 8.1.1 : inachevé quand l'adversaire est parti)."
    )
    assert open_match_awarded("play_in", 9, left="bob", why=UNFINISHED_AT_EXIT) == (
        "Your Play-in match 9 is awarded to you: bob left the championship (rules 8.1.1: "
        "unfinished when the opponent left)."
    )
    assert "(Barrage)" in open_match_awarded("play_in", 9, left="b", why="x", words=fr)
    again = paired_again_after_exit(
        "sf1", left="carl", match_id=12, white="alice", black="dora", words=fr
    )
    assert again.startswith("Nouvel appariement pour la première demi-finale après le départ")


def test_a_refusal_of_the_room_and_of_registration_comes_in_the_reader_s_words() -> None:
    fr = words("fr")
    assert no_such_match(4, fr) == "Il n'y a pas de match 4."
    assert result_recorded("first_wins", "forfeit", fr) == (
        "Résultat enregistré : gagné par le premier joueur (par forfait)."
    )
    assert result_recorded("tied", "td") == "Result recorded: tied (by the TDs)."
    closes = dt.datetime(2021, 9, 30, 23, 59, tzinfo=dt.UTC)
    assert window_closed(closes - dt.timedelta(days=20), closes, fr).endswith(
        "du ven. 10 sept. 23:59 UTC au jeu. 30 sept. 23:59 UTC."
    )
    assert reason("bot_account", cheat_one_cutoff=dt.date(2021, 1, 1),
                  cheat_two_cutoff=dt.date(2020, 1, 1), words=fr) == (
        "un compte BOT ne peut pas jouer (règle 2.ii.5)"
    )  # fmt: skip
    # kept in English, each fixed reason is read in the page's words
    assert fr.gettext(REASONS["account_closed"]) == "le compte est fermé (règle 2.ii)"
    assert gone("disqualified", "rules 6.5", fr).startswith(
        "Vous êtes disqualifié de ce championnat (rules 6.5) ; vous ne pouvez pas"
    )


def test_the_stage_names_and_the_time_control_come_in_the_reader_s_words() -> None:
    fr = words("fr")
    assert stage_name("semifinal", fr) == "Demi-finale"
    assert stage_name("third_place") == "Third place"
    assert time_control_text(Ruleset().time_control, fr) == "2+5 antichess classée"
    long = "x" * 500
    cut = fit(long, 100, words=fr)
    assert len(cut) == 100
    assert cut.endswith("… (raccourci ; la salle de match a la suite)")


def test_a_mistyped_command_is_answered_in_the_reader_s_words() -> None:
    week = match_week(dt.date(2021, 10, 12), Ruleset())
    now = dt.datetime(2021, 10, 12, 9, tzinfo=dt.UTC)
    fr = words("fr")
    with pytest.raises(CommandError) as unknown:
        parse("ofer thu 18:00", now=now, week=week)
    assert unknown.value.said(fr).startswith("Je ne connais pas la commande « ofer ».")
    assert unknown.value.said() == unknown.value.message
    assert unknown.value.message.startswith("I don't know the command 'ofer'.")
    with pytest.raises(CommandError) as mismatch:
        parse("offer fri 14 oct 18:00", now=now, week=week)
    assert (
        mismatch.value.said(fr) == "Le 2021-10-14 est un jeudi, pas un vendredi ; vérifiez la date."
    )
    assert mismatch.value.message == "2021-10-14 is a Thursday, not a Friday; check the date."
    with pytest.raises(CommandError) as no_time:
        parse("offer thu", now=now, week=week)
    assert no_time.value.said(fr) == (
        "« thu » : à quelle heure ? Ajoutez une heure UTC comme 18:00, par exemple "
        "`2021-10-14 18:00`, `thu 18:00` ou `14 oct 6pm` (en anglais)."
    )


def test_a_refused_offer_is_answered_in_the_reader_s_words() -> None:
    ruleset = Ruleset()
    week = match_week(dt.date(2021, 10, 12), ruleset)
    now = dt.datetime(2021, 10, 12, 9, tzinfo=dt.UTC)
    talks = start_negotiation(MatchId(7), (PlayerId("alice"), PlayerId("bob")), week)
    first = dt.datetime(2021, 10, 14, 18, tzinfo=dt.UTC)
    talks = make_offers(
        talks, [first], player=PlayerId("alice"), now=now, ruleset=ruleset
    ).negotiation
    with pytest.raises(NegotiationError) as close:
        make_offers(
            talks,
            [first + dt.timedelta(hours=1)],
            player=PlayerId("alice"),
            now=now,
            ruleset=ruleset,
        )
    assert close.value.said(words("fr")).startswith(
        "jeu. 14 oct. 19:00 UTC n'est qu'à 1 heure de votre proposition 1 (jeu. 14 oct. 18:00 UTC)"
    )
    assert close.value.message.startswith(
        "Thu 14 Oct 19:00 UTC is only 1 hour from your offer 1 (Thu 14 Oct 18:00 UTC)"
    )


def test_a_refused_break_claim_or_bid_is_answered_in_the_reader_s_words() -> None:
    fr = words("fr")
    conduct = Ruleset().conduct
    with pytest.raises(RulesError) as claim:
        check_claim((), PlayerId("alice"), match_id=MatchId(7), conduct=conduct)
    assert claim.value.said(fr).startswith("Vous n'avez rien à réclamer : une victoire se ")
    assert "délai de grâce de 10 minutes" in claim.value.said(fr)
    assert claim.value.message.startswith("You have nothing to claim: a win can be claimed")
    with pytest.raises(RulesError) as bid:
        parse_bid("3:40", ruleset=Ruleset())
    assert bid.value.said(fr) == (
        "Les Blancs ne peuvent pas avoir plus de temps que les 3:00 des Noirs ; vous avez "
        "proposé 3:40."
    )


def test_a_browser_s_accept_language_is_read_in_its_order() -> None:
    assert negotiate("fr-FR,fr;q=0.9,en;q=0.8") == "fr"
    assert negotiate("en-US,en;q=0.9,fr;q=0.8") == "en"
    assert negotiate("de-DE,de;q=0.9,fr-CA;q=0.5") == "fr"  # the first offered one
    assert negotiate("fr;q=0.4, en;q=0.7") == "en"  # by weight, not by place
    assert negotiate("fr;q=0, de") == DEFAULT  # q=0: not wanted
    assert negotiate("FR") == "fr"
    assert negotiate(None) == negotiate("") == negotiate("*") == negotiate("x;q=zz") == DEFAULT


def test_a_check_s_problem_kept_in_english_is_read_back_in_the_reader_s_words() -> None:
    fr = words("fr")
    assert read_back(unreachable("HTTP 503"), fr) == "Lichess n'a pas pu être joint : HTTP 503"
    assert read_back("Lichess error: HTTP 400", fr) == "erreur de Lichess : HTTP 400"
    assert read_back("no such Lichess account", fr) == "ce compte Lichess n'existe pas"
    assert read_back(REASONS["bot_account"], fr) == "un compte BOT ne peut pas jouer (règle 2.ii.5)"
    assert read_back("a reason a TD typed", fr) == "a reason a TD typed"  # as it was written
    assert read_back(unreachable("HTTP 503")) == "Lichess could not be reached: HTTP 503"


def test_a_knockout_repeat_names_the_stage_in_the_reader_s_words() -> None:
    said = knockout_repeat("semifinal", week=1, match_id=3, white_first="alice", words=words("fr"))
    assert said.startswith("Votre match (demi-finale) est à égalité après la semaine 1")
    assert knockout_repeat("third_place", week=1, match_id=3, white_first="alice").startswith(
        "Your third place match is tied after week 1"
    )

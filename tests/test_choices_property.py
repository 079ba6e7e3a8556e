"""Property-based tests of coordqa.choices.

Option texts are arbitrary Unicode strings, restricted only to the ones :func:`choose` accepts:
non-blank, single-line and not themselves a letter reference ("B", "(c)", "Option A"). That
restriction is the documented contract, not a convenience: an option literally "B" cannot be told
apart from the letter answer "B", so such lists are rejected with ConfigError (tested in
test_choices.py) instead of being scored by an arbitrary precedence. The properties about one
option's text or letter need distinct texts (two options that share a text share its reading) and
at most 26 options (options past Z are answered by text only); the consistency property does not.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

import coordqa
from coordqa.choices import MAX_OPTIONS, Choice, choose, option_letter
from coordqa.choices._layout import _LETTERED, clean, origin
from coordqa.choices._options import normalise
from coordqa.errors import ConfigError

DECORATIONS = ["{}", "{}.", "({})", "{})", "Answer: {}", "Action: {}", "**{}**"]


def _accepted(text: str) -> bool:
    """An option text choose() accepts and that does not open with a letter label.

    An option such as "B) 0" is accepted, but a reply that is exactly that text reads as the
    lettered line "B) 0" (letter B), as a grader reads it: no option list of a dataset or a game
    has such a text (checked in test_no_shipped_option_opens_with_a_letter_label).
    """
    try:
        choose(None, [text])
    except ConfigError:
        return False
    return _LETTERED.match(normalise(text)) is None


option_text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=30).filter(
    _accepted
)
option_lists = st.lists(option_text, min_size=1, max_size=MAX_OPTIONS, unique_by=normalise)
any_option_lists = st.lists(option_text, min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(options=option_lists, data=st.data())
def test_reply_that_is_one_options_text_chooses_it(options: list[str], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    choice = choose(options[index], options)
    assert choice == Choice("chosen", index, (index,), "option_text_exact")


@settings(max_examples=300, deadline=None)
@given(
    options=option_lists,
    data=st.data(),
    decoration=st.sampled_from(DECORATIONS),
    lower=st.booleans(),
)
def test_reply_that_is_one_options_letter_chooses_it(
    options: list[str], data: st.DataObject, decoration: str, lower: bool
) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    letter = option_letter(index).lower() if lower else option_letter(index)
    choice = choose(decoration.format(letter), options)
    assert choice.outcome == "chosen"
    assert choice.index == index
    assert choice.method.endswith("_letter")


@settings(max_examples=300, deadline=None)
@given(reply=st.text(max_size=200), options=any_option_lists)
def test_any_reply_gives_a_consistent_choice(reply: str, options: list[str]) -> None:
    choice = choose(reply, options)
    assert all(0 <= i < len(options) for i in choice.candidates)
    back = Choice.from_dict(choice.to_dict())
    assert back == choice and back.span == choice.span
    if choice.outcome == "no_answer":
        assert choice.span is None
    else:
        assert choice.span is not None
        start, end = choice.span
        assert 0 <= start < end <= len(reply)
        assert reply[start:end] == reply[start:end].strip()


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=80))
def test_origin_maps_every_cleaned_character_back(text: str) -> None:
    cleaned = clean(text)
    where = [origin(text, i) for i in range(len(cleaned))]
    assert where == sorted(set(where))
    for char, index in zip(cleaned, where, strict=True):
        if char == " ":
            assert text[index].isspace() or text[index] in "*_`~"
        else:
            assert char in text[index].lower()


def test_no_shipped_option_opens_with_a_letter_label() -> None:
    for name in ("coordinationqa-v1", "coordinationqa-v1.1", "example"):
        for row in coordqa.load_dataset(name):
            labelled = [o for o in row["options"] if _LETTERED.match(normalise(o))]
            assert not labelled, row["question_id"]

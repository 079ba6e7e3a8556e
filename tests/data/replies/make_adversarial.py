"""Write adversarial.jsonl: replies in the styles of real models, one family per failure class.

Run: python tests/data/replies/make_adversarial.py tests/data/replies/adversarial.jsonl
Each family builds its replies from the bundled dataset's questions and gives each the label a
careful grader gives, with the reason, at the moment it is written: the label follows from how the
reply is built, and coordqa.choices is never called here. The output is deterministic (seeded);
families added later go at the end, so earlier replies keep their ids and text.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

import coordqa
from coordqa.choices import format_options, option_letter
from coordqa.prompts import question_text

rng = random.Random(20251123)
ROWS = [dict(r) for r in coordqa.load_dataset("coordinationqa-v1")]
"""The questions the replies answer: the frozen v1 release, so the output never changes."""
OUT = []
COUNTS: Counter[str] = Counter()


def partner(row):
    text = row["state_description"] + " " + row["question"]
    if "I am Alice" in text or "I am Bob" in text:
        return "Bob" if "I am Alice" in text else "Alice"
    return "Alice" if "Alice" in text else "Bob"


def marker(row):
    return "Action" if row["question_type"] == "JP" else "Answer"


EXPLANATIONS = {
    "overcooked": [
        "{p} is closer to the onion dispenser and the pot still needs onions, so we "
        "should not both go for the same item.",
        "The soup in c0 is not cooking yet; {p} is standing next to the pot, so I should "
        "not block the path.",
        "Looking at the distances, {p} can reach the counter first, and my hands are busy.",
    ],
    "hanabi": [
        "{p} holds a card that is playable right now and we still have reveal tokens "
        "left, so information is worth more than a discard.",
        "The stacks are low and we have 3 lives, so the safest move is the one that "
        "keeps our knowledge consistent.",
        "My partner's last action tells me something about my hand: they would not "
        "have revealed that otherwise.",
    ],
    "collab_capture": [
        "The thief can only move to adjacent rooms, so I should cut off its escape "
        "while {p} covers the other side.",
        "If we both stay, the thief slips away through the door; {p} is already next to it.",
    ],
    "collab_escape": [
        "The killer is two rooms away and moves randomly, so I must not walk towards "
        "it while {p} works on the generator.",
        "Fixing a generator takes several turns, and the killer is far enough for now.",
    ],
}


def expl(row, others=True, avoid=None):
    base = rng.choice(EXPLANATIONS[row["game"]]).format(p=partner(row))
    n = len(row["options"])
    if others and n >= 4:
        a, b = rng.sample([j for j in range(n) if j != avoid], 2)
        base += (
            f" Option {option_letter(a)} would waste time, and ({option_letter(b)}) ignores what"
            f" {partner(row)} is doing."
        )
    return base


def add(family, row, reply, outcome, option, reason, options=None, prompt_tail=None):
    options = list(row["options"]) if options is None else options
    OUT.append(
        {
            "id": f"adversarial/{family}-{COUNTS[family]:02d}",
            "source": "adversarial/v1",
            "question_id": row["question_id"] if row else None,
            "prompt_tail": prompt_tail if prompt_tail is not None else question_text(row),
            "options": options,
            "reply": reply,
            "outcome": outcome,
            "option": option,
            "reason": reason,
        }
    )
    COUNTS[family] += 1


def pick(pred=lambda r: True, k=8):
    pool = [r for r in ROWS if pred(r)]
    return rng.sample(pool, k)


def other(n, i):
    return rng.choice([j for j in range(n) if j != i])


def lower_first(text):
    return text[0].lower() + text[1:]


# --- chat models answering in the asked format (GPT-4/3.5, Mistral, Mixtral)
for row in pick(k=12):
    i = rng.randrange(len(row["options"]))
    add(
        "gpt4-letter",
        row,
        f"Explanation: {expl(row, avoid=i)}\n{marker(row)}: {option_letter(i)}",
        "chosen",
        i,
        "explanation names other letters as rejected; the answer line names one letter",
    )
for row in pick(k=10):
    i = rng.randrange(len(row["options"]))
    add(
        "gpt4-markdown",
        row,
        f"**Explanation:** {expl(row, avoid=i)}\n\n**{marker(row)}:** {option_letter(i)}. "
        f"{row['options'][i]}",
        "chosen",
        i,
        "bold answer line with the letter and its own option text",
    )
for row in pick(k=10):
    i = rng.randrange(len(row["options"]))
    add(
        "gpt4-paren",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {option_letter(i)} "
        f"({row['options'][i]})",
        "chosen",
        i,
        "letter with its option text in parentheses",
    )
for row in pick(k=10):
    i = rng.randrange(len(row["options"]))
    add(
        "gpt35-text",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {row['options'][i]}.",
        "chosen",
        i,
        "the answer line repeats one option's text",
    )
for row in pick(lambda r: r["question_type"] == "JP", k=10):
    i = rng.randrange(len(row["options"]))
    text = lower_first(row["options"][i])
    add(
        "mixtral-sentence",
        row,
        f"Based on the current state, the best action for me is to {text}. This keeps "
        "us from getting in each other's way and makes progress towards our goal.",
        "chosen",
        i,
        "a concluding sentence names one action as the best",
    )
for row in pick(k=10):
    i = rng.randrange(len(row["options"]))
    add(
        "mistral-answer-first",
        row,
        f" {marker(row)}: {option_letter(i)}\n\nExplanation: {expl(row, avoid=i)}",
        "chosen",
        i,
        "answer first, then an explanation that only rejects other letters",
    )
for row in pick(lambda r: 3 <= len(r["options"]) <= 6, k=8):
    i = rng.randrange(len(row["options"]))
    lines = []
    for j, text in enumerate(row["options"]):
        comment = (
            "this is the best choice here"
            if j == i
            else rng.choice(
                [
                    "not useful right now",
                    "this would waste a turn",
                    "this does not fit the situation",
                ]
            )
        )
        lines.append(f"{option_letter(j)}. {text}: {comment}.")
    kind = "action" if row["question_type"] == "JP" else "answer"
    add(
        "gpt4-evaluate-each",
        row,
        "Let's go through the options one by one:\n"
        + "\n".join(lines)
        + f"\n\nTherefore, the best {kind} is {option_letter(i)}.",
        "chosen",
        i,
        "a commentary on every option, then a concluding sentence with one letter",
    )
for row in pick(k=8):
    i = rng.randrange(len(row["options"]))
    add(
        "first-line-letter",
        row,
        f"{option_letter(i)}\n\n{expl(row, others=False)}",
        "chosen",
        i,
        "a bare letter, then the explanation",
    )
for row in pick(lambda r: len(r["options"]) >= 3, k=8):
    i = rng.randrange(len(row["options"]))
    j = other(len(row["options"]), i)
    add(
        "correction",
        row,
        f"{marker(row)}: {option_letter(j)}\nHmm, actually {lower_first(row['options'][i])} "
        f"is better once I look at {partner(row)}'s position again.\n{marker(row)}: "
        f"{option_letter(i)}",
        "chosen",
        i,
        "the first answer is revised ('Hmm, actually') and the last one is final",
    )

# --- not one clear option
for row in pick(lambda r: len(r["options"]) >= 3, k=8):
    i = rng.randrange(len(row["options"]))
    j = other(len(row["options"]), i)
    add(
        "letter-other-text",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {option_letter(i)}. "
        f"{row['options'][j]}",
        "ambiguous",
        None,
        "the letter names one option and the text after it another",
    )
for row in pick(lambda r: len(r["options"]) >= 3, k=8):
    i, j = sorted(rng.sample(range(len(row["options"])), 2))
    add(
        "hedge",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {option_letter(i)} "
        f"or {option_letter(j)}",
        "ambiguous",
        None,
        "two letters offered as alternatives",
    )
for row in pick(k=6):
    add(
        "unclear",
        row,
        f"Explanation: It depends on what {partner(row)} does next, and I cannot see "
        f"enough of the state to tell.\n{marker(row)}: Unclear",
        "no_answer",
        None,
        "the answer line says it cannot decide",
    )
for row in pick(k=4):
    add(
        "refusal",
        row,
        "I'm sorry, but I cannot determine the best option from the information given.",
        "no_answer",
        None,
        "a refusal names no option",
    )
for row in pick(lambda r: r["question_type"] == "JP" and len(r["options"]) >= 2, k=6):
    a, b = rng.sample(range(len(row["options"])), 2)
    add(
        "truncated",
        row,
        f"Explanation: Let me compare {lower_first(row['options'][a])} with "
        f"{lower_first(row['options'][b])}. "
        "The first one",
        "no_answer",
        None,
        "cut off in the explanation before any answer",
    )
for row in pick(lambda r: len(r["options"]) >= 3, k=8):
    picks = rng.sample(range(len(row["options"])), 3)
    add(
        "answer-list",
        row,
        "\n".join(f"{marker(row)}: {option_letter(p)}" for p in picks),
        "ambiguous",
        None,
        "three answer lines for three different options, no revision",
    )
for row in pick(lambda r: len(r["options"]) >= 3, k=6):
    i, j = rng.sample(range(len(row["options"])), 2)
    add(
        "explained-answer-pairs",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {option_letter(i)}\n"
        f"Explanation: {partner(row)} might also change plans.\n{marker(row)}: {option_letter(j)}",
        "ambiguous",
        None,
        "two explanation/answer pairs with different answers and no revision",
    )

# --- base-model output: echoes, runaways, template tokens, debris
HEADER = {"JP": "Available Actions:", "EC": "Available Answers:", "ToM": "Available Answers:"}
for row in pick(k=8):
    add(
        "echo-question",
        row,
        f"{row['question']}\n\n{HEADER[row['question_type']]}\n{format_options(row['options'])}",
        "no_answer",
        None,
        "repeats the question and its option list, answers nothing",
    )
for row in pick(k=6):
    add(
        "echo-list",
        row,
        format_options(row["options"]),
        "no_answer",
        None,
        "only the lettered option list; its last line is not a choice",
    )
for row in pick(k=8):
    i = rng.randrange(len(row["options"]))
    add(
        "echo-then-answer",
        row,
        f"{row['question']}\n{HEADER[row['question_type']]}\n{format_options(row['options'])}\n"
        f"\n{marker(row)}: {option_letter(i)}",
        "chosen",
        i,
        "repeats the question, then answers it",
    )
INVENTED = [
    "Is the pot full?",
    "Can Bob see my cards?",
    "Is the thief in Room 3?",
    "Did the killer move?",
]
for row in pick(k=8):
    i = rng.randrange(len(row["options"]))
    add(
        "runaway-question",
        row,
        f"{marker(row)}: {option_letter(i)}\n\nQuestion: {rng.choice(INVENTED)}\nAvailable "
        "Answers:\nA. Yes\nB. No\nAnswer: B",
        "chosen",
        i,
        "answers, then invents a new question and answers that",
    )
for row in pick(k=8):
    i = rng.randrange(len(row["options"]))
    j = other(len(row["options"]), i)
    tokens = rng.choice(
        [
            ("</s>\n<start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n"),
            (
                "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n",
                "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
            ),
            ("</s>[INST] ", " [/INST] "),
            ("<|im_end|>\n<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"),
        ]
    )
    add(
        "runaway-turn",
        row,
        f"{marker(row)}: {option_letter(i)}{tokens[0]}{row['question']}{tokens[1]}{marker(row)}: "
        f"{option_letter(j)}",
        "chosen",
        i,
        "a new chat turn starts after the first answer; the second answers another turn",
    )
FAKE = [
    "Move to Room 3",
    "Pick up the knife",
    "Play the Red 5",
    "Go to the kitchen",
    "Open the door",
]
for row in pick(k=6):
    fakes = rng.sample(FAKE, 3)
    add(
        "invented-first",
        row,
        f"What should Bob do next?\nA. {fakes[0]}\nB. {fakes[1]}\nC. {fakes[2]}\nAnswer: B",
        "no_answer",
        None,
        "invents its own question and options and answers those",
    )
RAMBLE = {
    "overcooked": "The chef is in the kitchen. The chef is cooking the soup. The chef "
    "is in the kitchen. The chef is cooking the soup. The chef",
    "hanabi": "Hanabi is a cooperative card game. The players can see each other's "
    "cards. The players can give hints. The players can",
    "collab_capture": "The thief is in the house. The thief is in the house. The door "
    "is open. The thief is in the house. The",
    "collab_escape": "The killer is in the house. We need to fix the generators. The "
    "killer is in the house. We need to",
}
for row in pick(k=6):
    add(
        "rambling",
        row,
        RAMBLE[row["game"]],
        "no_answer",
        None,
        "repetitive rambling, no option named",
    )
for row in pick(k=10):
    i = rng.randrange(len(row["options"]))
    reply = rng.choice(
        [
            f"{marker(row)}: {option_letter(i)}',",
            f'"{marker(row)}: {row["options"][i]}",',
            f"{marker(row)}: {row['options'][i]}<|eot_id|>",
            f"'Explanation: {expl(row, others=False)}\n{marker(row)}: {option_letter(i)}'",
            f"{marker(row)}: {option_letter(i)}</s>",
        ]
    )
    add(
        "debris",
        row,
        reply,
        "chosen",
        i,
        "one answer; quotes, commas and end tokens around it are debris",
    )
for row in pick(lambda r: 2 <= len(r["options"]) <= 6, k=6):
    n = len(row["options"])
    add(
        "off-list-triple",
        row,
        f"{marker(row)}: (A)(B)({option_letter(n)})",
        "ambiguous",
        None,
        f"names A and B and a letter ({option_letter(n)}) that is not on the list",
    )
for row in pick(lambda r: len(r["options"]) <= 6, k=4):
    n = len(row["options"])
    add(
        "off-list-only",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {option_letter(n + 1)}",
        "no_answer",
        None,
        "the only letter named is not on the list",
    )


# --- inflection, paraphrase, abbreviation, answer lines without the word Answer/Action
def colour_rows():
    return [r for r in ROWS if any(" color cards" in o for o in r["options"])]


for row in rng.sample(colour_rows(), 10):
    colours = [j for j, o in enumerate(row["options"]) if " color cards" in o]
    i = rng.choice(colours)
    text = row["options"][i]
    name, rest = text.split("'s ", 1)
    colour = rest.split()[0]
    short = text.replace(colour, colour[0])
    add(
        "colour-initial",
        row,
        f"Explanation: {expl(row, others=False)}\n{marker(row)}: {short}.",
        "chosen",
        i,
        f"{colour[0]} is the initial of {colour}, the only colour on the list starting with it",
    )


def move_rows():
    return [
        r
        for r in ROWS
        if r["game"].startswith("collab")
        and any(o.startswith("Move to Room") for o in r["options"])
    ]


for row in rng.sample(move_rows(), 10):
    moves = [j for j, o in enumerate(row["options"]) if o.startswith("Move to Room")]
    i = rng.choice(moves)
    room = row["options"][i].split()[-1]
    reply = rng.choice(
        [
            f"Explanation: {expl(row, others=False)}\n{marker(row)}: I will move to room {room}.",
            f"Explanation: {expl(row, others=False)}\n{marker(row)}: Moving to room {room}",
            f"{partner(row) if row['question_type'] == 'ToM' else 'I'} will move to Room {room}.",
            f"Explanation: {expl(row, others=False)}\nMy next action: I will move to Room {room}.",
            f"Explanation: {expl(row, others=False)}\n{marker(row)}: Move towards room {room}",
        ]
    )
    add(
        "move-paraphrase",
        row,
        reply,
        "chosen",
        i,
        f"moving to Room {room} in the speaker's own words",
    )
for row in rng.sample(
    [r for r in ROWS if r["game"] == "overcooked" and r["question_type"] == "JP"], 6
):
    i = rng.randrange(len(row["options"]))
    add(
        "my-next-action",
        row,
        f"Explanation: {expl(row, others=False)}\nMy next action: {row['options'][i]}",
        "chosen",
        i,
        "'My next action:' is the speaker's answer line",
    )
for row in rng.sample([r for r in ROWS if r["question_type"] == "JP"], 6):
    i = rng.randrange(len(row["options"]))
    add(
        "partner-line-only",
        row,
        f"Explanation: {expl(row, others=False)}\n"
        f"{partner(row)}'s next action: {row['options'][i]}",
        "no_answer",
        None,
        "only the partner's next action is stated; the speaker's own is not",
    )
for row in rng.sample([r for r in ROWS if r["question_type"] == "JP"], 4):
    add("empty", row, rng.choice(["", "   \n", "\n\n"]), "no_answer", None, "empty reply")

# --- the original release's shapes: more than 26 options, two options with one text
ORIGINAL_28 = [
    *(f"pick up onion from {src}." for src in ("o0", "o1", "s0", "s1", "s2", "k1")),
    *(f"pick up plate from {src}." for src in ("p0", "s0", "s1", "s2", "k1")),
    *(f"place onion in {dst}." for dst in ("c0", "c1", "s0", "s1", "s2")),
    *(f"place plate in {dst}." for dst in ("s0", "s1", "s2")),
    "place onion on k1.",
    "place plate on k1.",
    "load soup on plate from c0.",
    "load soup on plate from c1.",
    "place soup for delivery in d0.",
    "place onion on k10.",
    "place plate on k10.",
    "wait.",
    "move away.",
]
ORIGINAL_HANABI_DUP = [
    "Play Card 0.",
    "Play Card 1.",
    "Discard Card 0.",
    "Reveal Bob's rank 1 cards.",
    "Reveal Bob's Red color cards.",
    "Reveal Bob's rank 1 cards.",
]
TAIL_28 = (
    "<Inventory>: I am holding onion. Bob is holding nothing.\n"
    "<Environment Details>: c0 contains 0 out of 3 onions. s1 contains onion.\n\n"
    "What action should I take next?\nAvailable Actions:\n" + format_options(ORIGINAL_28)
)
TAIL_DUP = (
    "It is currently My (Alice) turn. Bob's cards: [Card 0: R1] [Card 1: W4] [Card 2: R1]\n\n"
    "What action should I take next?\nAvailable Actions:\n" + format_options(ORIGINAL_HANABI_DUP)
)
LONG = [
    (
        "Explanation: The onion I hold should go to the shared counter s2, since Bob "
        "has the cookers.\nAction: wait.",
        "chosen",
        26,
        "option 27 ('[', wait) by its text",
    ),
    ("Action: move away.", "chosen", 27, "option 28 ('\\') by its text"),
    ("Action: [. wait.", "chosen", 26, "label '[' and the text of option 27"),
    ("Explanation: c1 needs onions.\nAction: J", "chosen", 9, "letter J is option 10"),
    (
        "What action should I take next?\nAvailable Actions:\n" + format_options(ORIGINAL_28),
        "no_answer",
        None,
        "the 28-option list echoed, ending with '\\. move away.'",
    ),
    (
        "Action: place onion in s2.</s>\nWhat action should Bob take next?\nAvailable "
        "Actions:\nA. wait.\nB. move away.\nAction: B",
        "chosen",
        15,
        "answers, then a runaway turn",
    ),
    ("Action: Z", "chosen", 25, "Z is option 26"),
    (
        "Action: I will place the onion on k10.",
        "chosen",
        24,
        "the speaker's sentence around option 25",
    ),
]
for reply, outcome, option, reason in LONG:
    add(
        "original-28-options",
        None,
        reply,
        outcome,
        option,
        reason,
        options=ORIGINAL_28,
        prompt_tail=TAIL_28,
    )
DUP = [
    (
        "Explanation: Bob's R1 cards are playable.\nAction: Reveal Bob's rank 1 cards.",
        "ambiguous",
        None,
        "D and F have this same text; no letter decides",
    ),
    ("Action: D", "chosen", 3, "the letter decides between the two identical texts"),
    ("Action: F. Reveal Bob's rank 1 cards.", "chosen", 5, "letter F with its own text"),
    (
        "Action: E. Reveal Bob's rank 1 cards.",
        "ambiguous",
        None,
        "letter E (Red) with the text of D/F",
    ),
    (
        "Explanation: Both red cards are ones.\nAction: Reveal Bob's R color cards.",
        "chosen",
        4,
        "R: Red, the only colour option",
    ),
]
for reply, outcome, option, reason in DUP:
    add(
        "original-duplicate-texts",
        None,
        reply,
        outcome,
        option,
        reason,
        options=ORIGINAL_HANABI_DUP,
        prompt_tail=TAIL_DUP,
    )

# --- added after the first measurement: the answer before "is the best ...", columns of letters
for row in pick(k=8):
    i = rng.randrange(len(row["options"]))
    kind = "action" if row["question_type"] == "JP" else "answer"
    reply = rng.choice(
        [
            f"{expl(row, others=False)} Therefore, {option_letter(i)} is the best {kind}.",
            f"Explanation: {expl(row, others=False)}\nOption {option_letter(i)} is "
            f"the correct {kind}.",
        ]
    )
    add("named-before", row, reply, "chosen", i, "one letter is called the best/correct one")
for row in pick(lambda r: len(r["options"]) >= 3, k=4):
    add(
        "letter-column",
        row,
        "\n".join(option_letter(j) for j in range(len(row["options"]))),
        "no_answer",
        None,
        "a column of every letter: the list, no choice",
    )

# --- added with the second pass: lists recited after a marker or on one line, an invented
# question answered on the answer's own line, one answer line repeated
for row in pick(lambda r: len(r["options"]) >= 3, k=6):
    options = row["options"]
    items = [f"{option_letter(j)}. {text}" for j, text in enumerate(options)]
    reply = rng.choice(
        [
            f"{marker(row)}: " + "\n".join(items),
            f"{marker(row)}: " + " ".join(items),
            " ".join(f"({option_letter(j)}) {text}" for j, text in enumerate(options)),
        ]
    )
    add("recited-list", row, reply, "no_answer", None, "the offered list recited: no choice")
for row in pick(lambda r: r["question_type"] != "JP" and len(r["options"]) >= 2, k=6):
    i = rng.randrange(len(row["options"]))
    j = other(len(row["options"]), i)
    asked = rng.choice(["Is the pot full?", "Can Bob reach d0?", "What will Bob do next?"])
    separator = rng.choice([". ", "\n"])
    add(
        "inline-question",
        row,
        f"Answer: {option_letter(i)}{separator}{asked} Answer: {option_letter(j)}",
        "chosen",
        i,
        "the first answer; an invented question follows and is answered on the same line",
    )
for row in pick(k=4):
    i = rng.randrange(len(row["options"]))
    add(
        "repeated-line",
        row,
        "\n\n".join([f"{marker(row)}: {option_letter(i)}"] * rng.randint(2, 5)),
        "chosen",
        i,
        "one answer line repeated by a looping model",
    )
for row in pick(lambda r: len(r["options"]) >= 3, k=2):
    i = rng.randrange(len(row["options"]))
    add(
        "repeated-line",
        row,
        "\n".join([option_letter(i)] * 3),
        "chosen",
        i,
        "one letter repeated: no list, one letter",
    )

# --- added with the "instead" pass: a choice stated with "instead"/"rather"/"not X but Y", after
# a reasoning sentence that names another option's letter or text (labelled as written)
CORRIDOR = ["Move up", "Stay", "wait", "Move down"]
TAIL_CORRIDOR = (
    "I am Alice, in a corridor one cell wide; Bob is right below me and wants to pass.\n\n"
    "What action should I take next?\nAvailable Actions:\n" + format_options(CORRIDOR)
)
ESCAPE_ROOMS = ["Move to Room 2", "Move to Room 10", "Fix generator in Room 1", "Wait"]
TAIL_ESCAPE = (
    "I am Alice in Room 1; the killer is in Room 2 and Bob is in Room 10.\n\n"
    "What action should I take next?\nAvailable Actions:\n" + format_options(ESCAPE_ROOMS)
)
INSTEAD = [
    (
        "If I choose A, Bob has to wait. I would choose D instead.",
        "chosen",
        3,
        "A is a hypothesis, 'wait' is Bob's; the choice stated is D",
    ),
    ("Answer: B instead.", "chosen", 1, "an answer line whose letter is followed by 'instead'"),
    ("I choose B instead.", "chosen", 1, "'I choose' B, with a trailing 'instead'"),
    (
        "If I choose A, Bob has to wait.\nI would choose D instead.",
        "chosen",
        3,
        "the same on two lines: the last line chooses D",
    ),
    ("Not A but D.", "chosen", 3, "'not A but D' names D as the answer"),
    ("The answer is not A but D.", "chosen", 3, "'the answer is not A but D': D"),
    (
        "I would not move up; I would choose D instead.",
        "chosen",
        3,
        "moving up is rejected, D is chosen",
    ),
    (
        "Bob has to wait if I move up, so I will pick D rather than A.",
        "chosen",
        3,
        "'pick D rather than A': D",
    ),
    ("Answer: D instead of A.", "chosen", 3, "the answer is D; A is what it replaces"),
    ("Answer: D, not A.", "chosen", 3, "the answer is D; A is rejected"),
    (
        "I was going to choose A, but I choose D instead.",
        "chosen",
        3,
        "the first choice is revised in the same sentence: D",
    ),
    ("Instead of moving up, I choose D.", "chosen", 3, "moving up is rejected, D is chosen"),
    ("Rather than A, I'd go with D.", "chosen", 3, "'rather than A, I'd go with D': D"),
    (
        "If I choose A, Bob has to wait. I would choose B or D instead.",
        "ambiguous",
        None,
        "two letters offered as alternatives after the hypothesis",
    ),
    (
        "If I move up, Bob has to wait instead.",
        "no_answer",
        None,
        "a hypothesis about my move and Bob's wait; no choice is stated",
    ),
    (
        "Answer: A\nOn second thought, Bob would have to wait then. Answer: D instead.",
        "chosen",
        3,
        "the first answer is revised; the last answer line names D",
    ),
    ("Answer: Move down instead.", "chosen", 3, "an answer line with D's text and 'instead'"),
    ("Final answer: D rather than A.", "chosen", 3, "'Final answer: D rather than A': D"),
    (
        "Rather than wait, I would choose D.",
        "chosen",
        3,
        "C's text is what is rejected; D is the letter chosen",
    ),
    (
        "I would choose D instead, because then Bob does not have to wait.",
        "chosen",
        3,
        "D chosen; 'wait' in the reason is Bob's",
    ),
    ("Instead, I choose D.", "chosen", 3, "'Instead, I choose D.': D"),
    (
        "Bob has to wait, so instead of A the answer is D.",
        "chosen",
        3,
        "'the answer is D'; A and 'wait' are the reasoning",
    ),
    (
        "Should I choose D instead? Bob is below me, so moving down would block him.",
        "no_answer",
        None,
        "D is asked about and then argued against; nothing is chosen",
    ),
    (
        "Maybe D instead? No, Bob is below me.\nAnswer: A",
        "chosen",
        0,
        "D is considered and rejected; the answer line names A",
    ),
    (
        "Answer: B. Bob should move down instead.",
        "chosen",
        1,
        "the answer is B; 'move down' is what Bob should do",
    ),
]
INSTEAD_ESCAPE = [
    (
        "If I move to Room 2 the killer catches me. I would choose C instead.",
        "chosen",
        2,
        "A's text is the hypothesis; C is chosen",
    ),
    (
        "Fixing the generator in Room 1 is too slow with the killer so close, so I choose B "
        "instead.",
        "chosen",
        1,
        "C's text is rejected in the reasoning; B is chosen",
    ),
    (
        "Moving to Room 10 leaves the generator alone. Answer: C rather than B.",
        "chosen",
        2,
        "B's text is in the reasoning; the answer names C",
    ),
]
for family, options, tail, replies in (
    ("instead-corridor", CORRIDOR, TAIL_CORRIDOR, INSTEAD),
    ("instead-escape", ESCAPE_ROOMS, TAIL_ESCAPE, INSTEAD_ESCAPE),
):
    for reply, outcome, option, reason in replies:
        add(family, None, reply, outcome, option, reason, options=options, prompt_tail=tail)
for row in pick(lambda r: len(r["options"]) >= 3, k=6):
    n = len(row["options"])
    i, j = rng.sample(range(n), 2)
    k = rng.choice([m for m in range(n) if m != i])
    add(
        "instead-rows",
        row,
        f"{expl(row, others=False)} If I pick {option_letter(j)}, {partner(row)} is left "
        f"with: {lower_first(row['options'][k])}. I would choose {option_letter(i)} instead.",
        "chosen",
        i,
        "another letter and another option's text in the reasoning; the choice is the letter",
    )
for row in pick(lambda r: len(r["options"]) >= 2, k=4):
    i = rng.randrange(len(row["options"]))
    j = other(len(row["options"]), i)
    reply = rng.choice(
        [
            f"{marker(row)}: {option_letter(i)} instead.",
            f"{marker(row)}: not {option_letter(j)} but {option_letter(i)}",
            f"I choose {option_letter(i)} rather than {option_letter(j)}.",
        ]
    )
    add("instead-rows", row, reply, "chosen", i, "one letter chosen over another")

path = sys.argv[1]
with open(path, "w", encoding="utf-8") as out:
    for record in OUT:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
print(len(OUT), "replies written to", path)

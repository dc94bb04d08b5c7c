"""`yoke.prefix`: results kept for a history's leading messages, and running totals over them."""

from __future__ import annotations

from yoke.prefix import PrefixMemo, common_prefix


def messages(n: int, tag: str = "m") -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{tag}{i}"} for i in range(n)]


def test_common_prefix_finds_where_two_histories_part() -> None:
    base = messages(300)
    assert common_prefix(base, base + messages(3, "x")) == 300  # grown at its end
    assert common_prefix(base, []) == 0 and common_prefix(messages(5, "a"), messages(5, "b")) == 0
    for at in (299, 297, 292, 291, 290, 150, 7, 1):  # near the end, just past the near-end probe, anywhere
        changed = [*base[:at], {"role": "user", "content": "other"}, *base[at + 1 :]]
        assert common_prefix(base, changed) == at, at
        copies = [dict(m) for m in base]  # equal by value, not identity, still count as the same
        assert common_prefix(copies, changed) == at, at


def test_a_memo_computes_only_new_messages_and_keeps_running_totals() -> None:
    computed: list[str] = []

    def size(message: dict[str, str]) -> int:
        computed.append(message["content"])
        return len(message["content"])

    memo = PrefixMemo(size, tallies=(lambda n: n, lambda n: n > 2))
    history = messages(10)
    assert memo.values(history) == [2] * 10 and memo.total() == 20 and memo.total(1) == 0
    history += messages(12)[10:]
    assert memo.values(history)[-2:] == [3, 3] and computed[-2:] == ["m10", "m11"] and len(computed) == 12
    assert (memo.total(), memo.total(1), memo.total(upto=10)) == (26, 2, 20)

    rewound = [*history[:5], {"role": "user", "content": "longer"}]  # a rewind: the tail is replaced
    assert memo.values(rewound) == [2] * 5 + [6] and computed[-1] == "longer" and len(computed) == 13
    assert (memo.total(), memo.total(1), memo.total(upto=5)) == (16, 1, 10)

    other = messages(4, "sub-agent ")  # a second history: its own totals, the first kept alongside
    memo.values(other)
    assert memo.total() == 4 * 11 and memo.held() == 6 + 4
    memo.values(rewound)
    assert memo.total() == 16 and len(computed) == 13 + 4

"""Stop words: function words and question words that carry no topic.

They are neither indexed nor matched, so "how do I share data between threads" searches
``share data thread``. The English list follows the Snowball project's English stop word
list (snowballstem.org, BSD), written out here, plus the words people use to phrase a
question to a search box (``can``, ``should``, ``possible``, ``way``); contractions are
covered because the analyser splits ``don't`` into ``don`` and ``t``. The Chinese list holds
the particles, pronouns and interrogatives that jieba returns as separate words
(``的``, ``吗``, ``怎么``, ``哪些``). Words that name things in documentation
(``default``, ``new``, ``first``) are deliberately absent.
"""

from __future__ import annotations

__all__ = ["CHINESE", "ENGLISH"]

ENGLISH = frozenset(
    str.split(
    """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can cannot could couldn d did didn do does doesn doing don
    down during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just ll m me more most mustn
    my myself no nor not now o of off on once only or other ought our ours ourselves out over
    own re s same shan she should shouldn so some such t than that the their theirs them
    themselves then there these they this those through to too under until up ve very was wasn
    we were weren what when where which while who whom why will with won would wouldn y you
    your yours yourself yourselves
    also anyone anything etc eg ie may might must shall whether whose
    possible possibly way ways want wants wanted let lets please thing things
    """
    )
)
"""Casefolded English stop words (matched before stemming)."""

CHINESE = frozenset(
    str.split(
    """
    的 了 着 过 吗 呢 吧 啊 呀 么 嘛 是 在 和 与 及 或 或者 而 并 并且 把 被 让 给 对 向 从
    就 都 也 还 又 再 才 很 更 最 要 会 能 可 可以 能够 应该 该 得 地 之 其 此 这 那 这个 那个
    这些 那些 这样 那样 这种 那种 什么 怎么 怎样 怎么样 如何 哪 哪个 哪些 哪里 哪儿 为什么
    为何 是否 是不是 有没有 能不能 会不会 我 我们 你 你们 他 她 它 它们 他们 自己 一个 一些 有
    没有 时 时候 的话 如果 那么 吗？ 呢？ 一下 一种 还是 以及 等 等等 啥 几 多少
    """
    )
)
"""Chinese function words as jieba segments them."""

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
    的 地 得 了 着 过 吗 呢 吧 啊 呀 么 嘛 哦 哈 啦 咯 呗
    是 在 和 与 及 或 或者 而 并 并且 而且 但 但是 可是 然而 因为 所以 因此 于是 如果 假如 要是
    虽然 即使 尽管 不过 只是 还是 以及
    把 被 让 给 对 对于 向 从 往 于 由 以 为 为了 关于 根据 按照 通过 经过 随着 除了 比 跟 同 离
    自 自从 直到 当
    就 都 也 还 又 再 才 很 更 最 太 非常 十分 比较 特别 越 稍 已 已经 曾 曾经 正 正在 将 将要
    会 能 可 可以 能够 应 应该 应当 该 要 需要 得以 必须 想 想要 愿意 肯 敢
    之 其 此 这 那 这个 那个 这些 那些 这样 那样 这种 那种 这么 那么 这里 那里 这儿 那儿 此外
    另外 其他 其它 其中 各 各种 每 每个 某 某个 某些 任何 所有 一切 全部 一些 一点 有些 有的
    什么 怎么 怎样 怎么样 怎么办 如何 哪 哪个 哪些 哪里 哪儿 哪种 哪几种 哪几 几 几个 几种 多少
    多久 为什么 为何 何时 是否 是不是 有没有 能不能 会不会 要不要 可不可以 吗？ 呢？ 啥 咋
    我 我们 你 你们 您 他 她 它 它们 他们 她们 自己 大家 别人 人家
    一个 一种 一下 一次 一样 一般 一直 一起 一定 有 没有 没 不 别 不要 不用 不会 不能 无 非
    时 时候 的时候 之后 之前 以后 以前 后 前 当时 然后 接着 最后 首先 其次 同时 之间 中 里 上
    下 内 外
    等 等等 的话 来说 而言 起来 下去 出来 来 去 到 用 做 弄 搞 成 很多 许多 不少 一部分 部分 大量
    彼此 自身 本身 只 仅 仅仅 多 即 按 这次 那次 可能 还会 干什么 干嘛
    """
    )
)
"""Chinese function words as jieba segments them: particles, pronouns, prepositions,
conjunctions, auxiliaries, adverbs of degree and time, interrogatives, position words and
vague quantities (a general list, in the spirit of the common Chinese IR stop lists; dev set
with it: Chinese+English questions 0.933 → 1.000 recall@10, docs/search.md). The last line
holds the Chinese equivalents of words of the English list above that the first lines
lacked: 彼此 (each other), 自身/本身 (itself), 只/仅/仅仅 (only), 多 (more),
即 (ie), 按 (by), 这次/那次 (this/that time), 可能 (may, possibly), 还会 (will … still),
干什么/干嘛 (what … for) (Chinese-only recall@10 0.800 → 0.867). 同一/同一个 (same) are kept:
in placement and sharing questions (不要跑在同一个节点上) "same" is the constraint itself (with
them as stop words a mixed question fell out of the top 10)."""

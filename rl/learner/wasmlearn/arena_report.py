"""The arena demonstration's report (arena_demo.py): filled in below."""


def markdown(res, img_rel):
    return "```\n%s\n```\n" % res

"""Spec §5: hyphens put back that pdftotext's dehyphenation took out of a DOI, where a large
registrant's DOI structure makes the hyphenless form impossible."""

from __future__ import annotations

import re

# rest of a DOI up to its line: nothing positional is left to see. Where the DOI structure of a
# large registrant makes the hyphenless form impossible, the hyphen is put back. Each rule is
# (pattern on the DOI name, replacement); extend the table as registrant patterns turn up, and
# with it the C matcher's prefilter of the names a rule may touch (_cscan.c, may_rehyphenate;
# native.py checks the count).
# An ISBN-13's ten digits after 978 or 979, hyphens between them, then a chapter's "_N" or the end.
_ISBN_END = r"(?:_|\Z)"
_ISBN_TEN = rf"(?=(?:[0-9]-?){{9}}[0-9X]{_ISBN_END})"

DEHYPHENATION_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # An ISSN is always NNNN-NNNX: Elsevier 0005-2795(77)…, S0140-6736(11)…, Wiley 1097-0142(2001…),
    # (SICI)1097-4571(1998…).
    (re.compile(r"\A(10\.\d+/(?:\(SICI\))?S?)(\d{4})(\d{3}[\dX])(?=\()", re.I | re.A), r"\1\2-\3"),
    # Blackwell/Wiley j.1365-2133.1977…
    (re.compile(r"\A(10\.\d+/j\.)(\d{4})(\d{3}[\dX])(?=\.)", re.I | re.A), r"\1\2-\3"),
    # SICI check: …>3.0.CO;2-O
    (re.compile(r"(>\d\.\d\.CO;\d)([\dA-Z])\Z", re.I | re.A), r"\1-\2"),
    # Springer sJJJJJ-YYY-NNNNN-C, the article number of 4 or 5 digits (s41586-020-2649-2); Nature's
    # news and views dJJJJJ-… alike (d41573-021-00081-z: all 21 of MEDLINE's)
    (
        re.compile(r"\A(10\.\d+/[sd]\d{5})(\d{3}-\d{4,5}-[\dA-Z])\Z", re.I | re.A),
        r"\1-\2",
    ),  # check: digit or letter
    (re.compile(r"\A(10\.\d+/[sd]\d{5}-\d{3})(\d{4,5}-[\dA-Z])\Z", re.I | re.A), r"\1-\2"),
    # …and before its check character: s41418-021-00798-9 (none of MEDLINE's 2,274 has six digits)
    (re.compile(r"\A(10\.\d+/[sd]\d{5}-\d{3}-\d{4,5})([\dA-Z])\Z", re.I | re.A), r"\1-\2"),
    # A book's ISBN-13 in its chapters' DOIs (Springer 978-1-0716-1514-0_25): 978 or 979 and ten
    # digits in four parts. With a hyphen lost, three: the one after 978, the one after a group of
    # one digit (groups 0-5 and 7 are one digit long), or the one before the check digit.
    (
        re.compile(rf"\A(10\.\d+/97[89]){_ISBN_TEN}(?=[0-9]+-[0-9]+-[0-9]+-[0-9X]{_ISBN_END})", re.I | re.A),
        r"\1-",
    ),
    (
        re.compile(
            rf"\A(10\.\d+/97[89]-){_ISBN_TEN}([0-57])(?=[0-9]+-[0-9]+-[0-9X]{_ISBN_END})", re.I | re.A
        ),
        r"\1\2-",
    ),
    (
        re.compile(rf"\A(10\.\d+/97[89]-){_ISBN_TEN}([0-9]+-[0-9]+-[0-9]+)([0-9X])(?=_|\Z)", re.I | re.A),
        r"\1\2-\3",
    ),
    # Baywood/SAGE (10.2190) ids of four blocks of four: DAC5-TPV6-XUHL-CRMV
    (
        re.compile(
            r"\A(10\.\d+/)(?=(?:[^-]*-){2})([A-Z0-9]{4})-?([A-Z0-9]{4})-?([A-Z0-9]{4})-?([A-Z0-9]{4})\Z",
            re.I | re.A,
        ),
        r"\1\2-\3-\4-\5",
    ),
    # Lippincott 00006534-197903000-00011 (under 10.1097, 10.1288 and others)
    (re.compile(r"\A(10\.\d+/\d{8})-?(\d{9})-?(\d{5})\Z"), r"\1-\2-\3"),
    # SICI contribution id: <148::AID-JCLP2270350124>
    (re.compile(r"(::AID)(?=[A-Z])", re.I | re.A), r"\1-"),
    # Elsevier's pre-2000 item number and check digit: (79)90007-2
    (re.compile(r"(\(\d{2}\)\d{5})([\dX])\Z", re.I | re.A), r"\1-\2"),
    # An ISSN at the start of the suffix is never run into the next number: 0022-1317-34-1-189
    (re.compile(r"\A(10\.\d+/(?!97[89])\d{4}-\d{3}[\dX])(?=\d)", re.I | re.A), r"\1-"),  # 978/979: an ISBN
    # Thieme s-0028-1095566
    (re.compile(r"\A(10\.1055/[a-z])-?(\d{4})-?(\d{7})\Z", re.I | re.A), r"\1-\2-\3"),
    # Annual Reviews annurev-pathol-020712-163923
    (re.compile(r"\A(10\.1146/annurev-[a-z]+)(\d{6}-\d{6})\Z", re.I | re.A), r"\1-\2"),
    # Chinese Medical Association cma.j.cn511374-20200924-00691 (all 18 of MEDLINE's)
    (re.compile(r"\A(10\.3760/cma\.j\.cn\d{6})-?(\d{8})-?(\d{5})\Z", re.I | re.A), r"\1-\2-\3"),
    # Canadian Science Publishing y77-183: a letter, the year, a hyphen, three digits (103 of
    # MEDLINE's 104; the other is bcb-2020-0599)
    (re.compile(r"\A(10\.1139/[a-z][0-9]{2})([0-9]{3})\Z", re.I | re.A), r"\1-\2"),
    # EuroIntervention eij-d-20-00216 (all 23 of MEDLINE's): the hyphens of its four parts
    (re.compile(r"\A(10\.4244/[a-z]+)([a-z]-[0-9]{2}-[0-9]{5})\Z", re.I | re.A), r"\1-\2"),
    (re.compile(r"\A(10\.4244/[a-z]+-[a-z])([0-9]{2})-?([0-9]{5})\Z", re.I | re.A), r"\1-\2-\3"),
    (re.compile(r"\A(10\.4244/[a-z]+-[a-z]-[0-9]{2})([0-9]{5})\Z", re.I | re.A), r"\1-\2"),
    # The BMJ's part letter bmj.1.6161.488-b (150 of MEDLINE's 616; none without its hyphen)
    (re.compile(r"\A(10\.1136/bmj\.[0-9]+\.[0-9]+\.[0-9]+)([a-z])\Z", re.I | re.A), r"\1-\2"),
    # An ISSN named as one is NNNN-NNNX: j.issn.1671-7104.2021.03.011 (all 24 of MEDLINE's)
    (re.compile(r"(\.issn\.)(\d{4})(\d{3}[\dX])(?=\.)", re.I | re.A), r"\1\2-\3"),
    # IOS Press journals' code of 2 or 3 letters, a hyphen, six digits: jad-210027 (all 170 of
    # MEDLINE's; its 4-letter book series shti210380 has none)
    (re.compile(r"\A(10\.3233/[a-z]{2,3})([0-9]{6})\Z", re.I | re.A), r"\1-\2"),
    # Proc Soc Exp Biol Med 00379727-156-39901 (all 71 of MEDLINE's): ISSN, volume, item
    (re.compile(r"\A(10\.3181/[0-9]{8})([0-9]{3}-[0-9]{5}[a-z]?)\Z", re.I | re.A), r"\1-\2"),
    (re.compile(r"\A(10\.3181/[0-9]{8}-[0-9]{3})([0-9]{5}[a-z]?)\Z", re.I | re.A), r"\1-\2"),
    # The Endocrine Society's jcem-48-5-816 (all 237 of MEDLINE's): the code's hyphen
    (re.compile(r"\A(10\.1210/[a-z]+)([0-9]+-[0-9]+-[0-9]+)\Z", re.I | re.A), r"\1-\2"),
    # …and the hyphens of its volume (jcem's two digits, endo's three), issue (one) and page
    (
        re.compile(
            r"\A(10\.1210/(?:jcem-[0-9]{2}|endo-[0-9]{3}))-?([0-9])-?([1-9][0-9]{0,3})\Z", re.I | re.A
        ),
        r"\1-\2-\3",
    ),
    # AACR's 0008-5472.can-20-2874 (all 35 of MEDLINE's): ISSN, journal code, year, number
    (
        re.compile(
            r"\A(10\.1158/[0-9]{4}-[0-9]{3}[0-9X]\.[a-z]{2,4})-?([0-9]{2})-?([0-9]{4})\Z", re.I | re.A
        ),
        r"\1-\2-\3",
    ),
    # J Oral Implantol aaid-joi-d-20-00301 (all 15 of MEDLINE's)
    (re.compile(r"\A(10\.1563/aaid-joi-d)-?([0-9]{2})-?([0-9]{5})\Z", re.I | re.A), r"\1-\2-\3"),
    # Ann Intern Med 0003-4819-90-1-127_2 (all 91 of MEDLINE's): ISSN, volume, issue, page, part
    (
        re.compile(
            r"\A(10\.7326/0003)-?(4819)-?([0-9]{2})-?([0-9])-?([1-9][0-9]{0,3}(?:_[0-9])?)\Z", re.I | re.A
        ),
        r"\1-\2-\3-\4-\5",
    ),
    # Br J Radiol 0007-1285-51-603-220-b (all 48 of MEDLINE's): ISSN, volume, issue, page, part
    (
        re.compile(
            r"\A(10\.1259/0007)-?(1285)-?([0-9]{2})-?([0-9]{3})-?([1-9][0-9]{0,3}(?:-[ab])?)\Z", re.I | re.A
        ),
        r"\1-\2-\3-\4-\5",
    ),
)


def _any_of(rules: list[re.Pattern[str]]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?{'ai' if p.flags & re.I else ''}:{p.pattern})" for p in rules))


# Whether any rule can apply at all: a match of the rules anchored at the name's start and a
# search of the others (which start with a literal: the search skips to it), instead of a
# substitution per rule, for the names (most) that no rule touches.
_ANY_AT_START = _any_of([p for p, _ in DEHYPHENATION_RULES if p.pattern.startswith(r"\A")])
_ANY_INSIDE = _any_of([p for p, _ in DEHYPHENATION_RULES if not p.pattern.startswith(r"\A")])


def rehyphenate(name: str) -> str:
    """The DOI name with hyphens put back where pdftotext's dehyphenation took them out."""
    if _ANY_AT_START.match(name) is None and _ANY_INSIDE.search(name) is None:
        return name
    for pattern, repl in DEHYPHENATION_RULES:
        name = pattern.sub(repl, name)
    return name

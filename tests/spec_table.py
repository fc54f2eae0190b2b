"""The specification as data: (text, expected DOIs in order, expected forms) rows, by rule.

Every row is checked for detection (find_dois), canonicalization, idempotence and URL
rendering by tests/test_spec.py. Sections refer to ../shared/spec/extraction-rules.md;
the seeds are the standards in ../shared/seeds/.
"""

from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    text: str
    dois: list[str]  # canonical DOIs expected, in order of appearance
    forms: list[str] | None = None  # expected display form of each hit, when the row is about forms
    kind: str = "plain"
    syntax: str | None = None  # spec §7: the source syntax the text is read in


# §1 Canonical form and equivalence — the standards' own examples.
CANONICAL = {
    # URN registration 2020, "Rules for lexical equivalence": four equivalent forms.
    "urn_2020_equivalent_forms": [
        Row("urn:doi:10.1000/456%23789", ["10.1000/456#789"], ["urn"]),
        Row("https://doi.org/10.1000/456%23789", ["10.1000/456#789"], ["resolver-url"]),
        Row("doi:10.1000/456#789", ["10.1000/456#789"], ["doi-label"]),
        Row("10.1000/456#789", ["10.1000/456#789"], ["bare"]),
    ],
    # DOI Handbook (URN 2020 "Syntax", NISO Z39.84 Appendix D).
    "handbook_doi": [Row("The handbook is 10.1000/182.", ["10.1000/182"], ["bare"])],
    # 2024 URI draft, Example 1 and 2 of §2; Note 1: Á is kept, never normalized.
    "uri_2024_examples": [
        Row("doi:10.5594/SMPTE.ST2067-21.2020", ["10.5594/smpte.st2067-21.2020"]),
        Row("10.26321/Á.GUTIÉRREZ.ZARZA.02.2018.03", ["10.26321/Á.gutiÉrrez.zarza.02.2018.03"]),
        Row("doi:10.26321/%C3%81.GUTI%C3%89RREZ.ZARZA.02.2018.03", ["10.26321/Á.gutiÉrrez.zarza.02.2018.03"]),
        Row("doi:10.1103/PhysRevLett.59.381", ["10.1103/physrevlett.59.381"]),
    ],
    # Spec §1: ASCII-only case folding; the Kelvin sign and long s are not k and s.
    "fold_ascii_only": [
        Row("10.1234/\u212a\u017f-X", ["10.1234/\u212a\u017f-x"]),
        Row("10.1234/A\u0301", ["10.1234/a\u0301"]),
    ],
    # Spec §1: percent-decode once; malformed, non-UTF-8 and control escapes stay.
    "percent_decode_once": [
        Row("https://doi.org/10.1000/a%2541", ["10.1000/a%41"]),
        Row("https://doi.org/10.1000/50%zz", ["10.1000/50%zz"]),
        Row("https://doi.org/10.1000/x%FFy", ["10.1000/x%ffy"]),
        Row("https://doi.org/10.1000/x%0Ay", ["10.1000/x%0ay"]),
        Row("10.1000%2F182", ["10.1000/182"], ["percent-encoded"]),
    ],
    # RFC 7972 via the URN registration 2020: EIDR swaps the first "/" for ":".
    "eidr_urn": [
        Row(
            "urn:eidr:10.5240:7B0B-0CE2-E3B1-D8AB-2B2C-6",
            ["10.5240/7b0b-0ce2-e3b1-d8ab-2b2c-6"],
            ["eidr-urn"],
        ),
        Row(
            "URN:EIDR:10.5240:F85A-E100-B068-5B8F-A1A0-8",
            ["10.5240/f85a-e100-b068-5b8f-a1a0-8"],
            ["eidr-urn"],
        ),
    ],
    # Spec §1: shortDOIs behind a label, URN, info:doi/ or a resolver; key 10/abcd.
    "short_doi_behind_label_or_resolver": [
        Row("doi:10/aabbe", ["10/aabbe"], ["short-doi"]),
        Row("DOI: 10/B6V3.", ["10/b6v3"], ["short-doi"]),
        Row("https://doi.org/10/bsf5", ["10/bsf5"], ["short-doi"]),
        Row("doi.org/10%2Fdzn5", ["10/dzn5"], ["short-doi"]),
        Row("(https://doi.org/c3bmmp)", ["10/c3bmmp"], ["short-doi"]),
        Row("http://dx.doi.org/10/fbg2fz/", ["10/fbg2fz"], ["short-doi"]),
        Row("urn:doi:10/abcd#frag", ["10/abcd"], ["short-doi"]),
        Row("info:doi/10/abcd", ["10/abcd"], ["short-doi"]),
        Row('<a href="https://doi.org/gf4d2x">x</a>', ["10/gf4d2x"], ["short-doi"], "html"),
        Row("cited as doi:10/ck5tx2 in the notes", ["10/ck5tx2"], ["short-doi"], "pdf"),
    ],
    "short_doi_not_bare_nor_word": [
        Row("on 10/12 of the days, 10/abcd", []),
        Row("https://doi.org/help and https://doi.org/2020", []),
        Row("doi:10/b6v_nmd", []),
        Row("https://doi.org/abc", []),
        Row("mydoi.org/abc123", []),
        Row("https://doi.org/10.1000/182", ["10.1000/182"], ["resolver-url"]),
    ],
    # URN 2020: F-, Q- and R-components are ignored.
    "urn_components_dropped": [
        Row("urn:doi:10.1000/182?=format", ["10.1000/182"]),
        Row("urn:doi:10.1000/182#section2", ["10.1000/182"]),
    ],
}

# §2 Where a DOI can start.
START = {
    "registrant_subdivided": [Row("doi:10.1000.10/123456", ["10.1000.10/123456"])],
    # Terms: a label is `doi` in ASCII letters; a look-alike (Cyrillic о, dotted İ) is none, so a
    # registrant of fewer than four digits after it is no DOI, and a longer one is bare
    "lookalike_letters_are_no_label": [
        Row("d\u043ei:10.77/8801", []),
        Row("DO\u0130:10.77/8801", []),
        Row("d\u043ei:10.1234/abc", ["10.1234/abc"], ["bare"]),
    ],
    # Terms and §4: a URL's `doi=` query parameter introduces a DOI as a label does (a registrant of
    # fewer than four digits too); URL context ends it at the `&`
    "doi_query_parameter_introduces_a_doi": [
        Row("https://example.org/search?doi=10.77/8801&lang=en", ["10.77/8801"], ["other-url"]),
        Row("https://example.org/search?DOI=10.1038/nphys1170&x=1", ["10.1038/nphys1170"]),
        Row("https://example.org/search?id=10.77/8801", []),  # another parameter: no label
        Row("/search?doi=10.77/8801&lang=en", ["10.77/8801"], ["other-url"]),  # no scheme: still a query
        Row("see doi=10.1038/abc&x", ["10.1038/abc&x"], ["doi-label"]),  # no query: a label, §4's `&` kept
    ],
    "bare_needs_four_digit_registrant": [
        Row("10.10.10.10/24 is a subnet", []),
        Row("upgrade to 10.2.1/ now", []),
        Row("a fraction 10.5/100 of cases", []),
        Row("version 10.123/4", []),
    ],
    "label_allows_short_registrant": [
        Row("doi:10.5/100", ["10.5/100"], ["doi-label"]),
        Row("https://doi.org/10.1/x", ["10.1/x"], ["resolver-url"]),
    ],
    "not_glued_to_letter_or_digit": [
        Row("110.1234/5 and v10.1234/5 and x10.1234/abc", []),
        Row("(10.1234/abc)", ["10.1234/abc"]),
    ],
    "glue_test_after_percent_decoding": [
        Row(
            "rtsp://service.net/query?doi%3A10.1234%2Fab%2Fcd%2Fef", ["10.1234/ab/cd/ef"], ["percent-encoded"]
        ),
        Row("id=info%3Adoi%2F10.1234%2Fxyz", ["10.1234/xyz"], ["percent-encoded"]),
        Row("q=abc%4110.1234%2Fxyz", []),
    ],
    "not_glued_to_number_and_dot": [
        Row("https://example.org/images/19.10.2019/photo.jpg", []),
        Row("https://example.org/release/1.10.1234/notes", []),
        Row("version 1.10.1234/5", []),
    ],
    "number_ending_in_10_does_not_hide_doi": [
        Row("Nature 455: 1–10. 10.1038/nature07953", ["10.1038/nature07953"], ["bare"]),
        Row("Nature 455: 1–10. 10.1038/nature07953", ["10.1038/nature07953"], ["bare"], "pdf"),
        Row("Nature 455: 1–10. 10.1038/nature07953", ["10.1038/nature07953"], ["bare"], "html"),
        Row("Smith J. 2010.\n10.1038/x", ["10.1038/x"], ["bare"]),
        Row("Smith J. 2010.\n10.1038/x", ["10.1038/x"], ["bare"], "pdf"),
        Row("Biol. 12: 1-10.\t10.1038/x", ["10.1038/x"], ["bare"], "pdf"),
    ],
    "label_then_whitespace_and_one_line_break": [
        Row("DOI: 10.1000/182", ["10.1000/182"], ["doi-label"]),
        Row(
            "Clin Rehabil 24: 1045–1056 DOI:\n10.1177/0269215510375901",
            ["10.1177/0269215510375901"],
            ["doi-label"],
        ),
        Row("DOI10.1016/j.cell.2010.01.002", ["10.1016/j.cell.2010.01.002"], ["doi-label"]),
        Row("doi：10.1000/182", ["10.1000/182"], ["doi-label"]),
    ],
    "label_without_doi": [Row("doi: none yet; DOI: pending", [])],
    "comma_or_semicolon_starts_second_doi": [
        Row("10.1000/1,10.1000/2;10.1000/3", ["10.1000/1", "10.1000/2", "10.1000/3"]),
    ],
}

# §3 Display forms.
FORMS = {
    "display_forms": [
        Row("http://dx.doi.org/10.1006/rwei.1999.0001", ["10.1006/rwei.1999.0001"], ["dx-resolver-url"]),
        Row("https://www.doi.org/10.1000/182", ["10.1000/182"], ["resolver-url"]),
        Row("doi.org/10.1000/182", ["10.1000/182"], ["resolver-url"]),
        Row("https://hdl.handle.net/10.1000/182", ["10.1000/182"], ["handle-url"]),
        Row("info:doi/10.1000/182", ["10.1000/182"], ["info-uri"]),
        Row("URN:DOI:10.1000/182", ["10.1000/182"], ["urn"]),
        Row(
            "https://link.springer.com/article/10.1007/s100529901036",
            ["10.1007/s100529901036"],
            ["other-url"],
        ),
        Row(
            "https://example.org/resolve?doi=10.1038/nature12373&x=1", ["10.1038/nature12373"], ["other-url"]
        ),
        Row("doi%3A10.1000%2F182", ["10.1000/182"], ["percent-encoded"]),
        Row("/doi/full/10.1002/anie.201915678/abstract", ["10.1002/anie.201915678"], ["other-url"]),
        Row('<a href="/doi/10.1000/182#sec1">x</a>', ["10.1000/182"], ["other-url"], "html"),
    ],
    "html_entities_decoded": [
        Row(
            "<p>doi&#58;10.1371&#47;journal.pcbi.1000204</p>",
            ["10.1371/journal.pcbi.1000204"],
            ["doi-label"],
            "html",
        ),
        Row("<p>10.1000&#x2F;182</p>", ["10.1000/182"], None, "html"),
        Row("<p>doi:10.5555/R&amp;D.2019.07</p>", ["10.5555/r&d.2019.07"], None, "html"),
        Row(
            "<p>10.1002/(SICI)1097-4571(199806)49:8&lt;693::AID-ASI4&gt;3.0.CO;2-O</p>",
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
            None,
            "html",
        ),
    ],
    "html_attribute_values": [
        Row(
            '<a href="https://doi.org/10.1371%2Fjournal.pone.0046041">link</a>',
            ["10.1371/journal.pone.0046041"],
            None,
            "html",
        ),
        Row(
            '<meta name="citation_doi" content="10.1371/journal.pbio.0020334">',
            ["10.1371/journal.pbio.0020334"],
            None,
            "html",
        ),
        Row('<span data-doi="10.1186/1471-2105-7-123">x</span>', ["10.1186/1471-2105-7-123"], None, "html"),
        Row(
            "<a href='http://dx.doi.org/10.1016/j.visres.2008.03.006?via=x&amp;y=1'>v</a>",
            ["10.1016/j.visres.2008.03.006"],
            None,
            "html",
        ),
    ],
    "entities_only_in_html": [Row("doi:10.5555/R&amp;D", ["10.5555/r&amp;d"])],
}

# §4 Where a DOI ends.
ENDS = {
    # §4: in URL context a query nested in a parameter's value, percent-encoded, ends a DOI
    "nested_query_ends_a_doi_in_url_context": [
        Row(
            "https://www.nature.com/articles/x?error=cookies_not_supported&t=pos%3Dtop%26doi%3D10.1038/d41586-020-02610-z%26subjmeta%3D479",
            ["10.1038/d41586-020-02610-z"],
        ),
        Row("https://doi.org/10.5555/R%26D.2019.07", ["10.5555/r&d.2019.07"]),  # no key and %3D: kept
        Row("see 10.5555/R%26D.2019.07 here", ["10.5555/r&d.2019.07"]),
        Row("doi:10.1038/x%26subjmeta%3D479", ["10.1038/x&subjmeta=479"]),  # after a label: no URL context
    ],
    "unicode_whitespace_ends": [
        Row("doi:10.1000/182\u00a0next", ["10.1000/182"]),
        Row("doi:10.1000/182\u2009next", ["10.1000/182"]),
        Row("doi:10.1000/182\u3000next", ["10.1000/182"]),
    ],
    "url_context_query_fragment_ampersand": [
        Row("https://doi.org/10.1000/456#789", ["10.1000/456"]),
        Row("https://doi.org/10.1000/182?locatt=mode:legacy", ["10.1000/182"]),
        Row("https://example.org/?doi=10.1000/182&format=ris", ["10.1000/182"]),
    ],
    "label_keeps_hash_and_ampersand": [
        Row("doi:10.1000/456#789", ["10.1000/456#789"]),
        Row("doi:10.5555/R&D.2019.07", ["10.5555/r&d.2019.07"]),
        Row("info:doi/10.1000/456#789", ["10.1000/456#789"]),
    ],
    "question_mark_outside_url": [
        Row("Is it doi:10.1000/182?", ["10.1000/182"]),
        Row("doi:10.1000/what?is=this", ["10.1000/what"]),
        Row("doi:10.1000/a?b", ["10.1000/a?b"]),
    ],
    "xml_tags_end_a_doi": [
        Row(
            '<article-id pub-id-type="doi">10.1371/journal.pone.0068090</article-id>',
            ["10.1371/journal.pone.0068090"],
        ),
        Row(
            '<pub-id pub-id-type="doi">10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O</pub-id>',
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
        ),
    ],
    # The rules are applied until none applies: a cut that leaves "<name" at the end of the
    # name cuts there too, so the raw text read again gives the same DOI (the library fuzz
    # target: urn:eidr:… + "(SI<I)" cut at its unbalanced ")", then read again at "<I").
    "cuts_repeat_until_none_applies": [
        Row("urn:eidr:10.5240/7D2:2/(SI<I) and", ["10.5240/7d2:2/(si"], ["urn"]),
        Row("urn:doi:10.1234/a<b, x", ["10.1234/a"], ["urn"]),
        Row("see 10.1234/ab<cd) and", ["10.1234/ab"], ["bare"]),
        Row("https://doi.org/10.1234/ab<cd)", ["10.1234/ab"], ["resolver-url"]),
    ],
    "double_quote_ends": [Row('"10.1000/182"', ["10.1000/182"]), Row('doi:10.1000/182"x', ["10.1000/182"])],
    "trailing_punctuation_stripped": [
        Row("see doi:10.1000/182.", ["10.1000/182"]),
        Row("(doi:10.1000/182), and", ["10.1000/182"]),
        Row("“10.1000/182”", ["10.1000/182"]),
        Row("„10.1000/182“", ["10.1000/182"]),
        Row("'10.1000/182';", ["10.1000/182"]),
        Row("«10.1000/182»", ["10.1000/182"]),
        Row("「10.1000/182」", ["10.1000/182"]),
        Row("doi:10.1000/182!?:", ["10.1000/182"]),
        Row("see doi:10.1000/182…", ["10.1000/182"]),
        Row("**doi:10.1000/182** and `10.1000/183`", ["10.1000/182", "10.1000/183"]),
    ],
    "brackets_balanced_kept_unbalanced_end": [
        Row(
            "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O",
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
        ),
        Row("(see doi:10.1000/182)", ["10.1000/182"]),
        Row("[https://doi.org/10.1000/182](https://doi.org/10.1000/182)", ["10.1000/182", "10.1000/182"]),
        Row("<https://doi.org/10.1000/182>", ["10.1000/182"]),
        Row("(doi:10.1016/S0140-6736(12)60240-2)", ["10.1016/s0140-6736(12)60240-2"]),
        Row("{10.1000/182}", ["10.1000/182"]),
        Row("（10.1000/182）", ["10.1000/182"]),
    ],
    "publisher_tails_in_url_context": [
        Row(
            "https://onlinelibrary.wiley.com/doi/abs/10.1002/anie.201915678/abstract",
            ["10.1002/anie.201915678"],
        ),
        Row(
            "https://onlinelibrary.wiley.com/doi/epdf/10.1111/j.1365-2524.2010.00917.x/full",
            ["10.1111/j.1365-2524.2010.00917.x"],
        ),
        Row("https://pubs.example.org/doi/10.1021/acs.jpcb.0c01234.pdf", ["10.1021/acs.jpcb.0c01234"]),
        Row("https://x.org/doi/10.1000/182;jsessionid=ABC123", ["10.1000/182"]),
        Row(
            "https://www.biorxiv.org/content/10.1101/2020.03.22.002386v1.full.pdf",
            ["10.1101/2020.03.22.002386"],
        ),
        Row(
            "https://www.medrxiv.org/content/10.1101/2020.04.01.20050542v2.supplementary-material",
            ["10.1101/2020.04.01.20050542"],
        ),
        Row("https://api.crossref.org/works/10.1000/182/transform/application/x-bibtex", ["10.1000/182"]),
        Row("https://api.crossref.org/works/10.1000/182/agency", ["10.1000/182"]),
        Row("https://academic.oup.com/nar/article/doi/10.1093/nar/gkaa942/5943200", ["10.1093/nar/gkaa942"]),
    ],
    "key_value_metadata_ends": [
        Row(
            "10.1021/acs.jmedchem.6b00723;journal:journal:jmcmar;page:string:Article",
            ["10.1021/acs.jmedchem.6b00723"],
        ),
        Row("doi=10.1038/d41586-020-02610-z;subjmeta=114,631;kwrd=x", ["10.1038/d41586-020-02610-z"]),
        Row(
            '<meta name="dc.identifier" content="doi:10.7326/M19-3075;subpage:string:abstract">',
            ["10.7326/m19-3075"],
            None,
            "html",
        ),
        Row(
            "10.1002/1097-4679(197901)35:1<148::AID-JCLP2270350124>3.0.CO;2-6",
            ["10.1002/1097-4679(197901)35:1<148::aid-jclp2270350124>3.0.co;2-6"],
        ),
    ],
    "extraction_debris_ends": [
        Row("doi:10.1016/j.cell.2010.01.002\ufffd\ufffd", ["10.1016/j.cell.2010.01.002"]),
        Row("doi:10.1016/j.cell.2010.01.002\ue02b", ["10.1016/j.cell.2010.01.002"], None, "pdf"),
        Row("doi:10.1016/j.cell.2010.01.002(cid:4)", ["10.1016/j.cell.2010.01.002"], None, "pdf"),
        Row("https://doi.org/10.1000/182.(cid:3)(cid:4) next", ["10.1000/182"], None, "pdf"),
    ],
    # §4: an emoji ends a DOI: Extended_Pictographic (©, ®, ™, ‼, ✔, ↔ and the pictographs) and
    # the regional indicators; other non-ASCII letters and symbols stay (§1).
    "emoji_ends": [
        Row("Read 10.1007/s12520-015-0279-7😀 now", ["10.1007/s12520-015-0279-7"]),
        Row("https://doi.org/10.1000/182✔ done", ["10.1000/182"], ["resolver-url"]),
        Row("doi:10.1000/abc©2020 and 10.1000/x™", ["10.1000/abc", "10.1000/x"]),
        Row("10.1000/paper.🎉🎉", ["10.1000/paper"]),
        Row("see 10.1000/flag🇫🇷", ["10.1000/flag"]),
        Row("10.1000/a↔b", ["10.1000/a"]),
        Row(
            "<p>doi:10.1038/nature12373 👍 and 10.1038/nphys1170👍</p>",
            ["10.1038/nature12373", "10.1038/nphys1170"],
            None,
            "html",
        ),
        Row("10.1016/j.cell.2010.01.002😀", ["10.1016/j.cell.2010.01.002"], None, "pdf"),
        # not an emoji: a letter of a supplementary plane, a symbol without the property
        Row("10.1000/𠀀x and 10.1000/a°b", ["10.1000/𠀀x", "10.1000/a°b"]),
    ],
    "publisher_resources_under_doi_path": [
        Row(
            "https://media.springernature.com/lw685/springer-static/image/art%3A10.1038%2Fs41586-019-1642-0/MediaObjects/41586_2019_1642_Fig1_HTML.png",
            ["10.1038/s41586-019-1642-0"],
        ),
        Row(
            "/article/10.1007/s11926-017-0626-z/MediaObjects/11926_2017_626_Fig1_HTML.gif",
            ["10.1007/s11926-017-0626-z"],
        ),
        Row(
            "https://pubs.acs.org/cms/10.1021/acs.jmedchem.6b00723/asset/images/medium/jm-2016-00723x_0001.gif",
            ["10.1021/acs.jmedchem.6b00723"],
        ),
        Row(
            "https://pubs.acs.org/doi/suppl/10.1021/acs.jmedchem.6b00723/suppl_file/jm6b00723_si_001.pdf",
            ["10.1021/acs.jmedchem.6b00723"],
        ),
        Row("/article/10.1007/s11926-017-0626-z/email/correspondent/c1/new", ["10.1007/s11926-017-0626-z"]),
        Row("https://joss.theoj.org/papers/10.21105/joss.01234/status.svg", ["10.21105/joss.01234"]),
        Row("https://zenodo.org/badge/DOI/10.5281/zenodo.1234567.svg", ["10.5281/zenodo.1234567"]),
        Row(
            "https://academic.oup.com/bib/article/doi/10.1093/bib/bbw110/2562646/A-review-of-validation",
            ["10.1093/bib/bbw110"],
        ),
    ],
    "shields_badge_message": [
        Row("https://img.shields.io/badge/DOI-10.5281%2Fzenodo.123-blue.svg", ["10.5281/zenodo.123"]),
        Row("https://img.shields.io/badge/DOI-10.5281%2Fzenodo--123-brightgreen", ["10.5281/zenodo-123"]),
        Row("https://img.shields.io/badge/doi-10.1000%2Fa__b-4c1.svg?style=flat", ["10.1000/a_b"]),
    ],
    # §4 (revised): Springer's view segments with .html, its preview pages, its DOI path markers
    "springer_urls": [
        Row(
            "https://link.springer.com/article/10.1007/s00125-019-4859-x/fulltext.html",
            ["10.1007/s00125-019-4859-x"],
        ),
        Row(
            "https://link.springer.com/content/pdf/10.1007%2FBF01406719/lookinside/000.png",
            ["10.1007/bf01406719"],
        ),
        Row("http://link.springer.com/article/10.1155/2010/359081", ["10.1155/2010/359081"]),
        Row("https://rd.springer.com/chapter/10.1155/2010/359081", ["10.1155/2010/359081"]),
        Row("https://link.springer.com/referenceworkentry/10.1155/2010/359081", ["10.1155/2010/359081"]),
        Row("https://pubs.example.org/doi/abs/10.1000/182/abstract.htm", ["10.1000/182"]),
        # the markers are Springer's: on another host an all-digit segment stays a file store
        Row("https://example.org/article/10.1155/2010/359081", []),
        Row("https://notlink.springer.com/article/10.1155/2010/359081", []),
        Row("https://link.springer.com/search/10.1155/2010/359081", []),
    ],
    "file_store_prefix_folder_not_a_doi": [
        Row("https://cdn.elifesciences.org/mp4/10.7554/886/3f0a9c1d2e/video.mp4", []),
        Row("https://example.org/files/10.7554/886/a/b", []),
        Row("https://example.org/doi/10.7554/886/a", ["10.7554/886/a"]),
        Row("https://doi.org/10.1000/182/x", ["10.1000/182/x"]),
        Row("https://example.org/article/10.1000/182/abstract", ["10.1000/182"]),
    ],
    "publisher_tails_not_outside_url": [
        Row("doi:10.1000/abc/full", ["10.1000/abc/full"]),
        Row("doi:10.1101/2020.03.22.002386v1", ["10.1101/2020.03.22.002386v1"]),
    ],
}

# §5 Cleaning, and PDF text.
CLEANING = {
    "format_characters_removed": [
        Row("doi:10.1371/jour\u00adnal.pcbi.1004\u200b141", ["10.1371/journal.pcbi.1004141"]),
        Row("10.1000/\u2060182\ufeff", ["10.1000/182"]),
    ],
    "html_inline_tags_transparent": [
        Row("<p>10.1186/1471-2105-7-<wbr>123</p>", ["10.1186/1471-2105-7-123"], None, "html"),
        Row("<p>doi:10.1000/<i>182</i>.</p>", ["10.1000/182"], None, "html"),
        Row(
            "<p>doi</a>:<a>10.1371/journal.pbio.1001315</a></p>",
            ["10.1371/journal.pbio.1001315"],
            None,
            "html",
        ),
    ],
    "html_block_boundaries_split": [
        Row("<p>10.1000/182<br>next</p>", ["10.1000/182"], None, "html"),
        Row("<table><tr><td>10.1000/182</td><td>2019</td></tr></table>", ["10.1000/182"], None, "html"),
        Row("<ul><li>10.1000/1</li><li>10.1000/2</li></ul>", ["10.1000/1", "10.1000/2"], None, "html"),
    ],
    "html_comments_styles_scripts_skipped": [
        Row(
            "<!-- 10.9999/x --><style>a{content:'10.9999/y'}</style><script>f('10.9999/z')</script><p>ok</p>",
            [],
            None,
            "html",
        ),
    ],
    "xml_read_as_markup": [
        Row(
            '<?xml version="1.0"?><article><pub-id pub-id-type="doi">10.1002/(SICI)1097-4571(199806)49:8&lt;693::AID-ASI4&gt;3.0.CO;2-O</pub-id>'
            '<p>See <ext-link xlink:href="https://doi.org/10.1000/182">doi:10.1000/<italic>182</italic></ext-link>.</p></article>',
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o", "10.1000/182"],  # one link: §6
            None,
            "html",
        ),
    ],
    "html_json_ld_read": [
        Row(
            '<script type="application/ld+json">{"@id":"https:\\/\\/doi.org\\/10.1093\\u002Fnar\\u002Fgkaa942"}</script>',
            ["10.1093/nar/gkaa942"],
            None,
            "html",
        ),
    ],
    "pdf_hyphen_like_and_ligatures": [
        Row("doi:10.1016/j.cell\u20102010.01.002", ["10.1016/j.cell-2010.01.002"], None, "pdf"),
        Row("doi:10.1016/j.\ufb01tote.2010.01.001", ["10.1016/j.fitote.2010.01.001"], None, "pdf"),
        Row("doi:10.1016/j.cell\u20102010", ["10.1016/j.cell\u20102010"], None, "plain"),
        # PDFium's mark of a hyphen at a line's end, the line joined (jad- + 201363)
        Row("J Alzheimers Dis 80: 1-9. doi:10.3233/jad\ufffe201363\n", ["10.3233/jad-201363"], None, "pdf"),
    ],
    "pdf_line_break_joined": [
        Row(
            "Networks 20: 49–68. https://doi.org/10.1080/\n09548980902950891\n21. Fitzgerald JD",
            ["10.1080/09548980902950891"],
            None,
            "pdf",
        ),
        Row(
            "Neuron 58: 956–66. https://doi.org/10.1016/j.neuron.2008.04.\n026\n54. Atencio CA",
            ["10.1016/j.neuron.2008.04.026"],
            None,
            "pdf",
        ),
        Row(
            "https://dx.doi.org/10.\n1371/journal.pbio.0020334.t002\n\nAnalogous results",
            ["10.1371/journal.pbio.0020334.t002"],
            None,
            "pdf",
        ),
        Row("doi:10.1111/j.1471-\n6712.2007.00449 more", ["10.1111/j.1471-6712.2007.00449"], None, "pdf"),
        Row(
            "left column text here          In: Methods. doi:10.1016/B978-\n"
            "more left column words         0-12-387688-1.00006-5 and on",
            ["10.1016/b978-0-12-387688-1.00006-5"],
            None,
            "pdf",
        ),
        Row(
            "  1. Smith J. Title. https://doi.org/10.1080/\n     09548980902950891",
            ["10.1080/09548980902950891"],
            None,
            "pdf",
        ),
    ],
    "pdf_layout_other_column_not_joined": [
        Row(
            "                                        Oecologia 164: 231-241. https://doi.org/10.1007/s00442-010-1640-2.\n"
            "waters. Nature 444: 283-284.",
            ["10.1007/s00442-010-1640-2"],
            None,
            "pdf",
        ),
        Row(
            "left column words      41. https://doi.org/10.1007/s10498-008-9036-1.\n"
            "in parenthesis (upper   PubMed: 20431922.",
            ["10.1007/s10498-008-9036-1"],
            None,
            "pdf",
        ),
        Row(
            "Structure 356 https://doi.org/10.1016/0022-        https://doi.org/10.1021/j100007a016\n"
            "2860(95)08939-S                                    next",
            ["10.1016/0022-2860(95)08939-s", "10.1021/j100007a016"],
            None,
            "pdf",
        ),
    ],
    # Spec §5, the registrant's shape (pdf.SHAPES): a piece that is no whole DOI of its
    # registrant's shape goes on where the rest completes it — on the next line against the
    # page-number rule, past a blank line (a column's end), a page number, or in -layout text
    # the other column's lines; a piece that stops in "/" or "-" goes on past them too.
    "pdf_rest_farther_down": [
        Row(
            "J Biol 95: 599-1942. doi:10.1038/nmeth.\n2942\n11. H. Muller",
            ["10.1038/nmeth.2942"],
            None,
            "pdf",
        ),
        Row(
            "J Biol 40: 574-1476. doi:10.1371/journal.pgen.\n\n1001674\n109. G. Okafor",
            ["10.1371/journal.pgen.1001674"],
            None,
            "pdf",
        ),
        Row(
            "J Biol 86: 12-1410. doi:10.1038/\n\nnature.3745\n51. A. Jones",
            ["10.1038/nature.3745"],
            None,
            "pdf",
        ),
        Row(
            "J Biol 17: 617-1303. doi:10.1371/\n1101\njournal.pbio.1153981\n109. D. Wang",
            ["10.1371/journal.pbio.1153981"],
            None,
            "pdf",
        ),
        Row(
            "Annu Rev Genet. doi:10.1146/annurev.genet.42.110807.091\n\f154 A. Sundstrom et al.\n601\n",
            ["10.1146/annurev.genet.42.110807.091601"],
            None,
            "pdf",
        ),
        Row(
            "   gene in neural of regulation. J Biol 80: 354-1603. doi:10.1016/j.tree.2020.\n"
            "                                                                                  evolution. J Biol 64: 28-1930.\n"
            "   11.011\n"
            "10. G. Muller, E. Garcia (1990) Networks",
            ["10.1016/j.tree.2020.11.011"],
            None,
            "pdf",
        ),
        Row(
            "                                        Immunopathol. 349: 833-862. DOI: 10.1016/0090-\n"
            "4. Freise J, Hofmann R, Gebel M\n"
            "                                        1229(78)90099-5\n"
            "chronic gastric erosions.",
            ["10.1016/0090-1229(78)90099-5"],
            None,
            "pdf",
        ),
    ],
    # The same for a prefix cut right after its "10.": in -layout text with the other column's
    # text after it on the line, or with a page number between (pdf.far_anchor).
    "pdf_registrant_code_farther_down": [
        Row(
            "  networks in dynamics networks. J Biol 58: 113-1788. https://doi.org/10.          model in. J Biol 46: 704-1589.\n"
            "  1016/j.jmb.2000.11.080                                                         147. D. Muller, F. Jones\n",
            ["10.1016/j.jmb.2000.11.080"],
            None,
            "pdf",
        ),
        Row(
            "83. H. Muller (1998) Cortical of model gene in. J Biol 3: 340-1388. doi:10.\n"
            "1101\n"
            "\n"
            "\f1146/annurev.biochem.50.118814.400451\n"
            "84. G. Muller",
            ["10.1146/annurev.biochem.50.118814.400451"],
            None,
            "pdf",
        ),
        Row("10. G. Muller, E. Garcia (1990) Networks\n1234/abc and more", [], None, "pdf"),
        Row("Table 10.   Results of the model\nwith 1016/2 of them", [], None, "pdf"),
    ],
    # A prefix cut after its "10." goes on in its own -layout column: the next line's other
    # column, or the other column's text past a gap on its own line, is never its registrant's
    # code, even when that text starts with one (pdftext.elsewhere).
    "pdf_registrant_code_in_its_own_column": [
        Row(
            "  Requested. Stud Health Inform 235: 375-410. https://doi.org/10.               5p-STAT3 pathway. Aging (Albany NY) 96: 438-456. DOI: 10.\n"
            "  1038/nbt.1069                                                                 18632/aging.202975\n",
            ["10.1038/nbt.1069", "10.18632/aging.202975"],
            None,
            "pdf",
        ),
        Row(
            "  COVID-19 Pandemic. A Survey of Patients with Delayed Hip and                  2013-2016. Int J Hyg 240: 113-140. https://doi.org/10.\n"
            "  Knee Arthroplasty. Arthroplast Today 74: 705-710. https://doi.org/10.         1038/ncb.3337\n"
            "  1016/j.artd.2021.05.013                                                       80. Molins F, Serrano MA (2021) Early\n",
            ["10.1038/ncb.3337", "10.1016/j.artd.2021.05.013"],
            None,
            "pdf",
        ),
        # baselines that do not line up: the next line holds only the other column's text
        Row(
            "  Dermal Sarcoma of the Forearm. J Hand Surg Am 395: 132-138. DOI: 10.\n"
            + " " * 81
            + "adults: A retrospective database study. Vaccine 327: 731-810. doi:10.\n"
            "  1038/nbt.2564\n" + " " * 81 + "1016/j.vaccine.2021.04.053\n",
            ["10.1038/nbt.2564", "10.1016/j.vaccine.2021.04.053"],
            None,
            "pdf",
        ),
    ],
    # A DOI that stops at a -layout column gap goes on in its own column on the next line when
    # the gap is a column boundary: the other column starts there on the next line or on the
    # line above; a wide gap inside a justified line, seen on neither, ends the DOI.
    "pdf_rest_below_a_column_gap_seen_above": [
        Row(
            "  combined robotic approach to a synchronous upper rectal and prostate           extension and seminal vesicle invasion in biopsy naive patients. Eur J\n"
            "  cancer - a video vignette. Colorectal Dis 393: 290-292. doi:10.1111/codi.      Radiol 179: 560-568. doi:10.1016/j.ejrad.2021.109804\n"
            "  15274\n"
            "101. Chen H, Yang X, Liu Y (2021) KOH modification effectively\n",
            ["10.1111/codi.15274", "10.1016/j.ejrad.2021.109804"],
            None,
            "pdf",
        ),
        Row(
            "  a reference whose line is justified doi:10.1111/codi.      and more words\n  15274 is a count\n",
            ["10.1111/codi"],
            None,
            "pdf",
        ),
    ],
    # -layout sets a page's columns side by side: a DOI cut at the foot of the left column goes
    # on at the head of the right column, on the page's first line above it (layout.column_top),
    # when that token is a rest the far joins take; a new reference there is none.
    "pdf_rest_at_the_head_of_the_pages_other_column": [
        Row(
            "\f43. Darmawan AB, Azkia ES (2021) Right hemiparesis caused by massive                014\n"
            "  otogenic brain abscess in children. Int J Surg Case Rep 71: 169-179.              Alcantara QA (2021) Alcohol and analgesia.\n"
            "61. Xu J, Fu H, Yang Y (2021) Modulation of CXCR1 and CXCR3                       63. Okino T (2021) A case of human breast sparganosis\n"
            "  cholangitis. Mol Immunol 133: 159-210. doi:10.1016/j.molimm.2021.04.              Parasitol Int 55: 280-310. doi:10.1016/j.parint.2021.102383\n"
            "\n\n                                                                           1293\n"
            "\f  sparganosis diagnosed by molecular analysis\n",
            ["10.1016/j.molimm.2021.04.014", "10.1016/j.parint.2021.102383"],
            None,
            "pdf",
        ),
        Row(
            "\f43. Darmawan AB, Azkia ES (2021) Right hemiparesis caused by massive              62. Zambelli VO (2021)\n"
            "  otogenic brain abscess in children. Int J Surg Case Rep 71: 169-179.              Alcantara QA (2021) Alcohol and analgesia.\n"
            "61. Xu J, Fu H, Yang Y (2021) Modulation of CXCR1 and CXCR3                       63. Okino T (2021) A case of human breast sparganosis\n"
            "  cholangitis. Mol Immunol 133: 159-210. doi:10.1016/j.molimm.2021.04.              Parasitol Int 55: 280-310. doi:10.1016/j.parint.2021.102383\n"
            "\n\n                                                                           1293\n"
            "\f  sparganosis diagnosed by molecular analysis\n",
            ["10.1016/j.molimm.2021.04", "10.1016/j.parint.2021.102383"],
            None,
            "pdf",
        ),
        # the other column ended higher up the page: its start is where the page's lines share it
        Row(
            "\f80. Buchan P, Miller WR (1978) Perphenazine and testosterone                        2021.03.025\n"
            "  in the rat. J Endocrinol 76: 25-31. doi:10.1677/joe.0.0760025                   118. Wang J, Wu J (2021) Growth hormone protects\n"
            "81. Ma Y (2021) Sex differences in surgical outcomes                                against injury. Cell 21: 3-9. doi:10.1016/j.cell.2021.01.002\n"
            "  of older adults. Ann Surg 12: 33-40. doi:10.1097/sla.0000000000004512           119. Li Q (2021) A cohort study\n"
            "82. Kumar V (2021) Outcomes at a Clinically Used Lower Dose.\n"
            "  J Surg Res 17: 594-605. DOI: 10.1016/j.jss.\n"
            "\n\n                                                                          1235\n"
            "\f120. Zhou F (2021) Next page\n",
            [
                "10.1677/joe.0.0760025",
                "10.1016/j.cell.2021.01.002",
                "10.1097/sla.0000000000004512",
                "10.1016/j.jss.2021.03.025",
            ],
            None,
            "pdf",
        ),
        # a page of one column: nothing to the right of the piece heads another column
        Row(
            "\f  2021.03.025 is a figure of the text\n  of one column, and more of it\n  and more\n"
            "  J Surg Res 17: 594-605. DOI: 10.1016/j.jss.\n\n\n          1235\n\fNext page\n",
            ["10.1016/j.jss"],
            None,
            "pdf",
        ),
    ],
    # A number alone on its line that completes the shape is the rest only when no line after it
    # does (a page number between: j.canlet.2021.05. + 1578 + 024); after a page break the rest
    # of a column's last DOI starts the next page, whatever its column.
    "pdf_rest_past_a_page_break": [
        Row(
            "Cancer Lett 354: 769-810. doi:10.1016/j.canlet.2021.05.\n1578\n024\n81. Leclerc J",
            ["10.1016/j.canlet.2021.05.024"],
            None,
            "pdf",
        ),
        Row(  # the number is the rest when what follows is a new reference, whose number fits too
            "J Biol 24: 899-1794. https://doi.org/10.1038/ngenet.\n3448\n119. A. Okafor (1993) Model",
            ["10.1038/ngenet.3448"],
            None,
            "pdf",
        ),
        Row(
            "  can improve visual function in preterm infants. Acta      J Environ Manage 107: 11-14. "
            "https://doi.org/10.1016/j.jenvman.2021.\n\n\n                                        1894\n"
            "\f  112838                                      All Gliflozins Reduce Stroke\n",
            ["10.1016/j.jenvman.2021.112838"],
            None,
            "pdf",
        ),
    ],
    # A number alone on the line after a "." is a page number (spec §5), except after a suffix that
    # is a journal's code alone, which no DOI is: the number is its rest. Not before a running
    # header, nor after a suffix with a digit.
    "pdf_journal_code_then_number_alone": [
        Row(
            "NMR Biomed 65: 820-910. doi:10.1002/nbm.\n4520\n117. Fontes EPB",
            ["10.1002/nbm.4520"],
            None,
            "pdf",
        ),
        Row("Vet Rec 188: 1-9. doi:10.1136/vetr.\n54\n", ["10.1136/vetr.54"], None, "pdf"),
        Row("doi:10.1002/nbm.\n154 A. Sundström et al.\n", ["10.1002/nbm"], None, "pdf"),
        Row("doi:10.1234/abc1.\n12\n", ["10.1234/abc1"], None, "pdf"),
        # farther down too, past -layout's other column, as a piece that stops in "/" or "-"
        Row(
            "  1016/j.peptides.2021.170533                                                    81. Inada S, Okajima T (2021) Kinase\n"
            "                                                                                   With a Redox Switch. Front Microbiol 295: 893-910. doi:10.3389/fmicb.\n"
            "59. Diba M, Koons GL, Bedell ML (2021) 3D printed colloidal\n"
            "                                                                                   2021.652546\n"
            "  biomaterials based on photo-reactive gelatin nanoparticles.\n",
            ["10.3389/fmicb.2021.652546"],
            None,
            "pdf",
        ),
    ],
    # A page number or range glued to a DOI at a page end (a tool that joins a page's last line
    # to the next page's header with no space) is cut off where the registrant's shape has one
    # length of last run (PLOS's seven digits, Annual Reviews' six), and nowhere else: Nature's
    # and Elsevier's last runs have several lengths, so 30981100 may be 309 + 81100 or 3098 + 1100.
    "pdf_page_number_glued": [
        Row("doi:10.1371/journal.pgen.10013731100–1104\nNext", ["10.1371/journal.pgen.1001373"], None, "pdf"),
        Row("pages 1-9. doi:10.1371/JOURNAL.PONE.00460412", ["10.1371/journal.pone.0046041"], None, "pdf"),
        Row(
            "Annu Rev Genet 42:1–30. doi:10.1146/annurev-genet-110807-091601113 Genetics",
            ["10.1146/annurev-genet-110807-091601"],
            None,
            "pdf",
        ),
        Row(
            "doi:10.1371/journal.pgen.1001373.g0011100",
            ["10.1371/journal.pgen.1001373.g0011100"],
            None,
            "pdf",
        ),
        Row("doi:10.1371/journal.pgen.10013730100", ["10.1371/journal.pgen.10013730100"], None, "pdf"),
        Row("doi:10.1038/nmeth.30981100", ["10.1038/nmeth.30981100"], None, "pdf"),
        Row(
            "doi:10.1371/journal.pgen.10013731100–1104",
            ["10.1371/journal.pgen.10013731100–1104"],
            None,
            "plain",
        ),
    ],
    # A piece cut in "/" or "-" at a -layout column gap, the other column ended on the line below:
    # the rest is that line's text in the DOI's own column.
    "pdf_cut_at_a_column_gap_the_other_column_ended": [
        Row(
            "  the regenerating rat liver. Exp Pathol (Jena) 295: 308-310. doi:10.1016/"
            "           1016/j.neuroimage.2021.118101\n"
            "  s0014-4908(77)80071-9\n",
            ["10.1016/s0014-4908(77)80071-9"],
            None,
            "pdf",
        ),
    ],
    "pdf_rest_farther_down_only_to_complete": [
        Row(
            "doi:10.1371/journal.pone.0046041\n\n1234567\nnext", ["10.1371/journal.pone.0046041"], None, "pdf"
        ),
        Row("doi:10.1016/j.cell.2009.01.042\n\n.021 more", ["10.1016/j.cell.2009.01.042"], None, "pdf"),
        Row("doi:10.1038/nmeth.\n\nshowed that\n2942", ["10.1038/nmeth"], None, "pdf"),
        Row("doi:10.1038/\n\n12. A. Smith (2001)", [], None, "pdf"),
        Row("doi:10.1038/nmeth.\n2942\n11. H. Muller", ["10.1038/nmeth"], None, "plain"),
    ],
    "pdf_continuation_has_a_digit": [
        Row(
            "doi:10.1111/j.1365-2486.2003.00619.\nx PMID: 1234",
            ["10.1111/j.1365-2486.2003.00619.x"],
            None,
            "pdf",
        ),
        Row(
            "doi:10.1177/0363546514539345.\nshowed that the graft", ["10.1177/0363546514539345"], None, "pdf"
        ),
        Row(
            "Nucleic Acids Research 25(17):3389–3402 DOI 10.1093/nar/25.17.3389.\nAlvarez-Ponce D, Aguade M",
            ["10.1093/nar/25.17.3389"],
            None,
            "pdf",
        ),
        Row(
            "https://doi.org/10.1016/j.jclinane.2021.110337.\na randomized trial",
            ["10.1016/j.jclinane.2021.110337"],
            None,
            "pdf",
        ),
    ],
    "pdf_justified_gap_is_not_a_column": [
        Row(
            "version. American Psychiatric Publishing, Inc.                    41-52.       doi:10.1016/j.schres.2006.01.003.        PubMed:\n"
            "27. American Psychiatric Association (2000) Diagnostic and        16497484.",
            ["10.1016/j.schres.2006.01.003"],
            None,
            "pdf",
        ),
    ],
    "pdf_broken_inside_publisher_view": [
        Row(
            "https://onlinelibrary.wiley.com/doi/abs/10.1002/anie.201915678/abstr\nact and more",
            ["10.1002/anie.201915678"],
            None,
            "pdf",
        ),
    ],
    "pdf_line_break_not_joined": [
        Row(
            "(2013) doi:10.1371/journal.pone.0071959\n23. Park IM, Archer EW",
            ["10.1371/journal.pone.0071959"],
            None,
            "pdf",
        ),
        Row("doi:10.1000/182.\nThe next sentence.", ["10.1000/182"], None, "pdf"),
        Row("doi:10.1000/182\nPMID: 123456", ["10.1000/182"], None, "pdf"),
        Row("doi:10.1000/182\n\nAbstract", ["10.1000/182"], None, "pdf"),
        # a percent-encoded separator is the separator: the DOI is past its prefix, whole
        Row("https://x.org/a?id=10.1234%2Fabc\nThe next line", ["10.1234/abc"], None, "pdf"),
        Row("see doi%3A10.1234%2Fabc\nThe next line", ["10.1234/abc"], None, "pdf"),
    ],
    "pdf_join_uses_document_evidence": [
        Row(
            "PLOS ONE | https://doi.org/10.1371/journal.pone.0066742 June 2013\n"
            "Multimorbidity refers to the https://doi.org/10.1371/journal.pone.006674\n2\n\nThis analysis",
            ["10.1371/journal.pone.0066742", "10.1371/journal.pone.0066742"],
            None,
            "pdf",
        ),
    ],
    "pdf_dehyphenated_registrant_patterns": [
        Row(
            "Vision Res 33: 173-193. doi:10.1016/00426989(93)90156-Q. PubMed",
            ["10.1016/0042-6989(93)90156-q"],
            None,
            "pdf",
        ),
        Row("Lancet. 2011. doi:10.1016/S01406736(11)60545-X", ["10.1016/s0140-6736(11)60545-x"], None, "pdf"),
        Row(
            "doi:10.1002/14397641(20011119)2:11<665::AID-CPHC665>3.0.CO;2O",
            ["10.1002/1439-7641(20011119)2:11<665::aid-cphc665>3.0.co;2-o"],
            None,
            "pdf",
        ),
        Row(
            "http://dx.doi.org/10.1111/j.14698137.2010.03347.x",
            ["10.1111/j.1469-8137.2010.03347.x"],
            None,
            "pdf",
        ),
        Row(
            "doi:10.1186/s11671021-03554-7 and doi:10.1007/s10805021-09420-6",
            ["10.1186/s11671-021-03554-7", "10.1007/s10805-021-09420-6"],
            None,
            "pdf",
        ),
        Row(
            "doi.org/10.1146/annurev-pathol020712-163923",
            ["10.1146/annurev-pathol-020712-163923"],
            None,
            "pdf",
        ),
        Row("doi:10.1097/00006534-19790300000011", ["10.1097/00006534-197903000-00011"], None, "pdf"),
        Row("doi:10.1016/00426989(93)90156-Q", ["10.1016/00426989(93)90156-q"], None, "plain"),
        Row(
            "doi:10.1002/1097-4679(197901)35:1<148::AIDJCLP2270350124>3.0.CO;2-6",
            ["10.1002/1097-4679(197901)35:1<148::aid-jclp2270350124>3.0.co;2-6"],
            None,
            "pdf",
        ),
        Row("doi:10.1016/0090-1229(79)900072", ["10.1016/0090-1229(79)90007-2"], None, "pdf"),
        Row(
            "doi:10.1055/s0028-1095566 and doi:10.1055/s-00281098315",
            ["10.1055/s-0028-1095566", "10.1055/s-0028-1098315"],
            None,
            "pdf",
        ),
        Row("doi:10.1288/00005537197902000-00001", ["10.1288/00005537-197902000-00001"], None, "pdf"),
        Row("doi:10.1099/0022-131734-1-189", ["10.1099/0022-1317-34-1-189"], None, "pdf"),
        Row("doi:10.1007/978-1-60761-842-3_11", ["10.1007/978-1-60761-842-3_11"], None, "pdf"),
        Row("doi:10.1007/s00415-02009950-w", ["10.1007/s00415-020-09950-w"], None, "pdf"),
        Row("doi:10.2190/DAC5TPV6-XUHL-CRMV", ["10.2190/dac5-tpv6-xuhl-crmv"], None, "pdf"),
        Row("doi:10.2190/DAC5TPV6XUHLCRMV", ["10.2190/dac5tpv6xuhlcrmv"], None, "pdf"),
        # Springer's article number has 4 digits too: sNNNNN-NNN-NNNN-C keeps its hyphens
        Row(
            "doi:10.1038/s41586-0202649-2 and doi:10.1038/s41525019-0108-5",
            ["10.1038/s41586-020-2649-2", "10.1038/s41525-019-0108-5"],
            None,
            "pdf",
        ),
        # a book's ISBN-13 in its chapters' DOIs: ten digits in four parts after 978, one hyphen
        # lost after 978, after a one-digit group or before the check digit; a lost hyphen between
        # the publisher's and the title's numbers cannot be placed, and stays lost
        Row(
            "doi:10.1007/978-10716-1514-0_25, doi:10.1007/9781-0716-1514-0_16, doi:10.1007/978-1-0716-15140_3",
            ["10.1007/978-1-0716-1514-0_25", "10.1007/978-1-0716-1514-0_16", "10.1007/978-1-0716-1514-0_3"],
            None,
            "pdf",
        ),
        Row("doi:10.1007/978-3-64281151-7_16", ["10.1007/978-3-64281151-7_16"], None, "pdf"),
        # a registrant's hyphens where MEDLINE shows no DOI of it without them: Canadian Science
        # Publishing's letter-year-page, EuroIntervention's four parts, the BMJ's part letter
        Row(
            "doi:10.1139/y77183, doi:10.4244/eij-d-2000216, doi:10.1136/bmj.1.6161.488b",
            ["10.1139/y77-183", "10.4244/eij-d-20-00216", "10.1136/bmj.1.6161.488-b"],
            None,
            "pdf",
        ),
        Row(
            "doi:10.1139/bcb-2020-0599 doi:10.1136/bmj.m1234",
            ["10.1139/bcb-2020-0599", "10.1136/bmj.m1234"],
            None,
            "pdf",
        ),
        # …IOS Press's journals, Proc Soc Exp Biol Med, the Endocrine Society, Nature's news (as
        # Springer's), and an ISSN named as one; IOS Press's book series has no hyphen
        Row(
            "doi:10.3233/jad210027 doi:10.3181/00379727156-39901 doi:10.1210/jcem48-5-816 "
            "doi:10.1038/d41573021-00081-z doi:10.3969/j.issn.16717104.2021.03.011",
            [
                "10.3233/jad-210027",
                "10.3181/00379727-156-39901",
                "10.1210/jcem-48-5-816",
                "10.1038/d41573-021-00081-z",
                "10.3969/j.issn.1671-7104.2021.03.011",
            ],
            None,
            "pdf",
        ),
        Row("doi:10.3233/shti210380", ["10.3233/shti210380"], None, "pdf"),
        # …the parts of the Endocrine Society's, AACR's, J Oral Implantol's, Ann Intern Med's and Br J
        # Radiol's DOIs, whose lengths MEDLINE shows fixed
        Row(
            "doi:10.1210/jcem-47-3499 doi:10.1210/jcem-482-338 doi:10.1210/endo-101-3776 "
            "doi:10.1158/0008-5472.can-211188 doi:10.1563/aaid-joi-d-2000301 "
            "doi:10.7326/00034819-90-3-435_2 doi:10.7326/0003-4819-901-114 doi:10.1259/0007-1285-51-603220",
            [
                "10.1210/jcem-47-3-499",
                "10.1210/jcem-48-2-338",
                "10.1210/endo-101-3-776",
                "10.1158/0008-5472.can-21-1188",
                "10.1563/aaid-joi-d-20-00301",
                "10.7326/0003-4819-90-3-435_2",
                "10.7326/0003-4819-90-1-114",
                "10.1259/0007-1285-51-603-220",
            ],
            None,
            "pdf",
        ),
        Row("doi:10.1210/endocr/bqab051", ["10.1210/endocr/bqab051"], None, "pdf"),
        Row("doi:10.1007/978-10716-1514-0_25", ["10.1007/978-10716-1514-0_25"], None, "plain"),
    ],
    "pdf_space_inside_doi": [
        Row("doi: 10. 1016/j.cell.2010.01.002", ["10.1016/j.cell.2010.01.002"], None, "pdf"),
        Row("doi: 10.1016/ j.cell.2010.01.002", ["10.1016/j.cell.2010.01.002"], None, "pdf"),
    ],
    "pdf_continuation_may_start_with_bracket": [
        Row(
            "Psychiatric Research, 12, 189–198. doi:10.1016/0022-3956\n(75)90026-6.\nFountoulakis, K. N.",
            ["10.1016/0022-3956(75)90026-6"],
            None,
            "pdf",
        ),
        Row(
            "doi:10.1002/(SICI)1099-1166(199601)11:1<15::AID-\nGPS262>3.0.CO;2-5.\nTsolaki, M.",
            ["10.1002/(sici)1099-1166(199601)11:1<15::aid-gps262>3.0.co;2-5"],
            None,
            "pdf",
        ),
        Row("doi:10.1000/182\n(12) Smith J", ["10.1000/182"], None, "pdf"),
    ],
    # A number alone on the line after a DOI's "." is its rest where the document's own DOIs show
    # its registrant's going on so (the shape joined seen unbroken, the piece's alone not): the
    # rest of 10.2214/ajr.129.4. beside an unbroken ajr.129.4.747; a page number otherwise.
    # A number alone below a piece cut in "-", past -layout's other column's lines, is its rest;
    # past blank lines it is a page number.
    "pdf_number_past_the_other_column_after_a_hyphen": [
        Row(
            "  hemolysate. Can. J. Physiol. Pharmacol. 265: 317-410. DOI: 10.1139/y77-\n"
            "                                                                                      388: 217-231. DOI: 10.1016/j.jcv.2021.104850\n"
            "  183\n"
            "                                                                                    79. Marrero MG, Dado-Senn B\n"
            "59. Place DE, Lee S, Kanneganti TD (2021) PANoptosis in microbial\n",
            ["10.1139/y77-183", "10.1016/j.jcv.2021.104850"],
            None,
            "pdf",
        ),
        Row("FEBS Lett. 197: 4-15. 10.1016/0014-\n\n151\n\n", ["10.1016/0014-"], None, "pdf"),
    ],
    # A far join (past blank lines, a page number or -layout's other column) of a piece cut in "/"
    # or "-" takes a rest that has a digit: never a word alone, a heading or a view word below.
    # A DOI does not end in "-": one letter or digit alone on the next line is its check
    # character (Elsevier's (77)90093-X, SICI's ;2-K, BMJ's 488-b), though a word may be prose.
    "pdf_check_character_alone_after_hyphen": [
        Row(
            "Biol. 165: 352-410. https://doi.org/10.1016/0009-2797(77)90093-\nx\n55. Lim YY",
            ["10.1016/0009-2797(77)90093-x"],
            None,
            "pdf",
        ),
        Row(
            "Br Med J 305: 425-442. doi:10.1136/bmj.1.6161.488-\nb\n60. Burkholder",
            ["10.1136/bmj.1.6161.488-b"],
            None,
            "pdf",
        ),
        Row("see doi:10.1234/abc-\na new line of prose here", ["10.1234/abc-"], None, "pdf"),
        Row(  # below -layout's other column too, when no line after it is taken
            "100. Beltramo E, Mazzeo A, Porta M (2021) Thiamine and diabetes: back              2021.120873\n"
            "  to the future? Acta Diabetol 87: 799-810. doi:10.1007/s00592-021-01752-\n"
            "                                                                                 120. Htun YM, Thiha K\n"
            "  4\n"
            "                                                                                   symptoms in patients\n"
            "101. Bhattacherjee P, Phylactos A (1978) Depression of prostaglandin               in Myanmar: A study.\n",
            ["10.1007/s00592-021-01752-4"],
            None,
            "pdf",
        ),
    ],
    "pdf_far_join_needs_a_minted_rest": [
        Row("PLoS Biol 4: 1-9. doi:10.1371/\n\n\nReviews\nThe next section", [], None, "pdf"),
        Row("Microbiology 145: 1-9. doi:10.1002/\n\n14\n\nmethods\n", [], None, "pdf"),
        Row(
            "Breast Cancer Res Treat 1: 1-9. doi:10.1007/s10549-019-05112-\n\n\nAbstract\nWe studied",
            ["10.1007/s10549-019-05112-"],
            None,
            "pdf",
        ),
        Row(
            "PLoS Biol 4: 1-9. doi:10.1371/\n\n\njournal.pbio.0040001\n2. Next",
            ["10.1371/journal.pbio.0040001"],
            None,
            "pdf",
        ),
    ],
    "pdf_number_alone_joined_by_document_evidence": [
        Row(
            "AJR 65: 220-310. doi:10.2214/ajr.129.4.747\n52. Nugent SK (1979) Pharmacology. "
            "doi:10.2214/ajr.129.4.\n595\n53. Akan OD",
            ["10.2214/ajr.129.4.747", "10.2214/ajr.129.4.595"],
            None,
            "pdf",
        ),
        Row(  # the shape alone seen: the number is a page number
            "doi:10.1080/13825589708256634\nCognition, 4, 1–32. doi:10.1080/13825589708256633.\n154\nNilsson",
            ["10.1080/13825589708256634", "10.1080/13825589708256633"],
            None,
            "pdf",
        ),
        Row(  # no DOI of the registrant unbroken, and no shape of its DOIs known: a page number
            "Am J Clin Nutr 32: 1-9. doi:10.1093/ajcn/32.3.\n512\n47. Rottas M",
            ["10.1093/ajcn/32.3"],
            None,
            "pdf",
        ),
        Row(  # the registrant's shape (SHAPES: Radiology's volume.issue.page) completes it
            "Radiology 247: 460-462. doi:10.1148/127.2.\n535\n47. Rottas M",
            ["10.1148/127.2.535"],
            None,
            "pdf",
        ),
        Row(  # JAMA's
            "JAMA Pediatr 175: 1-9. doi:10.1001/jamapediatrics.2021.\n1319\n12. Lee K (2020) Next",
            ["10.1001/jamapediatrics.2021.1319"],
            None,
            "pdf",
        ),
        Row(  # AJR's, Spandidos', J Exp Med's shapes likewise
            "doi:10.2214/ajr.129.6.\n1039\n53. Akan OD doi:10.3892/or.2020.\n7866\n54. Li X doi:10.1084/jem.146.5.\n1261\n55. Ng",
            ["10.2214/ajr.129.6.1039", "10.3892/or.2020.7866", "10.1084/jem.146.5.1261"],
            None,
            "pdf",
        ),
    ],
    "pdf_page_number_or_running_header_not_joined": [
        Row(
            "and Cognition, 4, 1–32. doi:10.1080/13825589708256633.\n154 A. Sundström et al.\nNilsson, L-G.",
            ["10.1080/13825589708256633"],
            None,
            "pdf",
        ),
        Row(
            "accepted for publication. doi: 10.1088/1674-1137/acb992.\n7\nThe next page",
            ["10.1088/1674-1137/acb992"],
            None,
            "pdf",
        ),
        Row(
            "Neuron 58: 956–66. https://doi.org/10.1016/j.neuron.2008.04.\n026\n54. Atencio CA",
            ["10.1016/j.neuron.2008.04.026"],
            None,
            "pdf",
        ),
    ],
    # A number alone after a DOI cut in "." is a page number only where it is one of the
    # document's page numbers, printed once a page in sequence (alone, or in a running header);
    # where the pages are numbered otherwise, it is the DOI's rest.
    "pdf_number_alone_is_the_rest_where_pages_are_numbered_otherwise": [
        Row(
            "Psychiatry 383: 516-610. doi:10.1186/s12888-021-03299-8\n1740\n\f1741 Ali et al.\n"
            "World J Gastroenterol 242: 490-518. doi:10.3748/wjg.v27.i20.\n2630\n22. Penev A, Bazley A\n1741\n",
            ["10.1186/s12888-021-03299-8", "10.3748/wjg.v27.i20.2630"],
            None,
            "pdf",
        ),
        Row(
            "The end of a page.\n6\n\faccepted for publication. doi: 10.1088/1674-1137/acb992.\n7\n\fThe next page\n8\n",
            ["10.1088/1674-1137/acb992"],
            None,
            "pdf",
        ),
    ],
    # …and a far join passes over the document's page numbers to the rest after them.
    "pdf_far_join_passes_over_the_documents_page_numbers": [
        Row(
            "Smith J (2021) A study. Cell 12: 3-4. doi:10.1016/j.cell.2021.01.002\n\n1186\n\n"
            "chitosan shell nanounits. Biomaterials 240: 653-673. doi:10.1038/nmeth.\n\n1187\n\n3207\n"
            "105. Bhattacharya B, Becher RD (2021) Anticoagulation\n\n1188\n",
            ["10.1016/j.cell.2021.01.002", "10.1038/nmeth.3207"],
            None,
            "pdf",
        ),
    ],
    "pdf_spaces_and_tabs_inside_doi": [
        Row(
            "Am J Psychiatry. doi:10.1176/appi. ajp.2010.09121789 and",
            ["10.1176/appi.ajp.2010.09121789"],
            None,
            "pdf",
        ),
        Row(
            "Cancer Discov. doi:10.1158/2159-\t8290.CD-\t21-\t1033. Next",
            ["10.1158/2159-8290.cd-21-1033"],
            None,
            "pdf",
        ),
        Row(
            "doi:10.1002/(SICI)1099-1166(199601)11:1< 15::AID-\nGPS262> 3.0.CO;2-5.",
            ["10.1002/(sici)1099-1166(199601)11:1<15::aid-gps262>3.0.co;2-5"],
            None,
            "pdf",
        ),
        Row("Elsevier's prefix is 10.1016/ in every DOI", [], None, "pdf"),
        Row("see doi:10.1000/182. 2019 was a good year", ["10.1000/182"], None, "pdf"),
        Row("doi:10.1176/appi. ajp.2010.09121789", ["10.1176/appi"], None, "plain"),
    ],
    "pdf_soft_hyphen_at_line_end": [
        Row("doi:10.1016/j.cell.2010.\u00ad\n01.002 next", ["10.1016/j.cell.2010.01.002"], None, "pdf"),
    ],
    "pdf_break_after_mid_token_registrant_name": [
        Row(
            "Proc. IPAC. https://doi.org/10.18429/JACoW\n-HP071-WEPTY035\n[5] Next ref",
            ["10.18429/jacow-hp071-wepty035"],
            None,
            "pdf",
        ),
    ],
    "pdf_line_ends_of_every_tool": [
        # PDFium (pypdfium2) ends its lines with CRLF
        Row(
            "J Adv Nurs 238: 804-810. https://doi.org/10.\r\n1111/jan.14836\r\n12. Lim TZ",
            ["10.1111/jan.14836"],
            None,
            "pdf",
        ),
        Row(
            "Lett. 197: 4-15. doi:10.1016/0014-\r\n5793(77)80070-7\r\n",
            ["10.1016/0014-5793(77)80070-7"],
            None,
            "pdf",
        ),
        # pdfminer sets text boxes apart by a blank line; a DOI does not end in "-" or "/"
        Row(
            "FEBS Lett. 197: 4-15. 10.1016/0014-\n\n5793(77)80070-7\n\n",
            ["10.1016/0014-5793(77)80070-7"],
            None,
            "pdf",
        ),
        Row("FEBS Lett. 197: 4-15. 10.1016/0014-\n\n151\n\n", ["10.1016/0014-"], None, "pdf"),
        Row("doi:10.1000/182\n\nAbstract", ["10.1000/182"], None, "pdf"),
        # a percent-encoded separator is the separator: the DOI is past its prefix, whole
        Row("https://x.org/a?id=10.1234%2Fabc\nThe next line", ["10.1234/abc"], None, "pdf"),
        Row("see doi%3A10.1234%2Fabc\nThe next line", ["10.1234/abc"], None, "pdf"),
    ],
    "pdf_hyphen_at_line_end_goes_on": [
        Row(
            "Plant Dis. 10.1094/PDIS-03-21-0548-\nPDN\n9. Next", ["10.1094/pdis-03-21-0548-pdn"], None, "pdf"
        ),
        Row("doi:10.1234/abc-\nshowed that", ["10.1234/abc-"], None, "pdf"),
    ],
    "plain_no_line_joining": [
        Row("https://doi.org/10.1080/\n09548980902950891", [], None, "plain"),
    ],
}

# §6 What is reported for each hit.
REPORTED = {
    "a_link_is_one_occurrence": [
        Row(
            '<a href="https://doi.org/10.1000/182">https://doi.org/10.1000/182</a>',
            ["10.1000/182"],
            ["resolver-url"],  # the target's: the first of the two
            kind="html",
        ),
        # JATS as PLOS writes it: the label before the element belongs to the text, which comes first
        Row(
            'doi: <ext-link ext-link-type="uri" xlink:href="http://dx.doi.org/10.1371/journal.pbio.0020334">'
            "10.1371/journal.pbio.0020334</ext-link>",
            ["10.1371/journal.pbio.0020334"],
            ["doi-label"],
            kind="html",
        ),
        Row(
            "[https://doi.org/10.1000/182 10.1000/182]", ["10.1000/182"], ["resolver-url"], syntax="wikitext"
        ),
        Row("[10.1000/182](https://doi.org/10.1000/182)", ["10.1000/182"], ["bare"], syntax="markdown"),
        Row(
            "[https://doi.org/10.1000/182](https://doi.org/10.1000/182)",
            ["10.1000/182"],
            ["resolver-url"],
            syntax="markdown",
        ),
        Row(
            r"\href{https://doi.org/10.1000/182}{10.1000/182}",
            ["10.1000/182"],
            ["resolver-url"],
            syntax="latex",
        ),
        Row(
            r"@misc{k, note = {\href{https://doi.org/10.1000/182} {doi:10.1000/182}}}",
            ["10.1000/182"],
            ["resolver-url"],
            syntax="bibtex",
        ),
    ],
    "a_link_naming_another_doi_is_two_hits": [
        Row(
            '<a href="https://doi.org/10.1000/182">10.1000/183</a>',
            ["10.1000/182", "10.1000/183"],
            kind="html",
        ),
        Row(
            '<a href="https://example.org/">10.1000/183</a>', ["10.1000/183"], kind="html"
        ),  # target names none
        Row(
            "[https://doi.org/10.1000/182 see 10.1000/183]", ["10.1000/182", "10.1000/183"], syntax="wikitext"
        ),
        # the same DOI outside the link's text: its own occurrence
        Row(
            '<a href="https://doi.org/10.1000/182">here</a> 10.1000/182',
            ["10.1000/182", "10.1000/182"],
            kind="html",
        ),
    ],
    # a funding organization of the Funder Registry: found like any DOI, named a funder (entity_of)
    "funder_dois": [
        Row(
            '<institution-id institution-id-type="funder-id">http://dx.doi.org/10.13039/501100001407</institution-id>',
            ["10.13039/501100001407"],
            ["dx-resolver-url"],
            kind="html",
        ),
        Row(
            '<fr:assertion name="funder_identifier">https://doi.org/10.13039/100000001</fr:assertion>',
            ["10.13039/100000001"],
            kind="html",
        ),
        Row("Funded by the NSF (doi:10.13039/100000001).", ["10.13039/100000001"], ["doi-label"]),
    ],
    "two_links_are_two_occurrences": [
        Row(
            '<a href="https://doi.org/10.1000/182">10.1000/182</a><a href="https://doi.org/10.1000/182">10.1000/182</a>',
            ["10.1000/182", "10.1000/182"],
            kind="html",
        ),
        Row(
            "[https://doi.org/10.1/x 10.1/x] and [https://doi.org/10.1/x 10.1/x]",
            ["10.1/x", "10.1/x"],
            syntax="wikitext",
        ),
    ],
}

# §7 Source syntaxes: delimiters a DOI never crosses, escapes undone (each row names its syntax).
SYNTAX = {
    "wikitext_template_parameter_ends_at_separator": [
        Row(
            "{{cite journal |doi = 10.1038/tp.2013.61|first = G.}}",
            ["10.1038/tp.2013.61"],
            ["doi-label"],
            syntax="wikitext",
        ),
        Row(
            "{{cite journal|doi=10.1016/s0140-6736(14)60539-0|pmid=25576992|volume=385}}",
            ["10.1016/s0140-6736(14)60539-0"],
            syntax="wikitext",
        ),
        Row(
            "{{Cite web |DOI= 10.1038/nn1833|url=http://www.nature.com/x}}",
            ["10.1038/nn1833"],
            syntax="wikitext",
        ),
        Row(
            "{{cite book|doi=10.1002/14356007.a22_031.pub2}}",
            ["10.1002/14356007.a22_031.pub2"],
            syntax="wikitext",
        ),
    ],
    "wikitext_doi_template_is_a_label": [
        Row(
            "See {{doi|10.1000/182}} and {{DOI|10.5/100}}.",
            ["10.1000/182", "10.5/100"],
            ["doi-label", "doi-label"],
            syntax="wikitext",
        ),
    ],
    "wikitext_links_end_a_doi": [
        Row(
            "[[10.1000/182|the handbook]] [https://doi.org/10.1000/183 text]",
            ["10.1000/182", "10.1000/183"],
            syntax="wikitext",
        ),
    ],
    "wikitext_quotes_comments_and_references": [
        Row("'''10.1000/182'''x ''10.1000/183''", ["10.1000/182", "10.1000/183"], syntax="wikitext"),
        Row("10.1000/18<!-- a comment -->2 end", ["10.1000/182"], syntax="wikitext"),
        Row(
            "<ref>{{cite|doi=10.1002/(SICI)1097-4571(199806)49:8&lt;693::AID-ASI4&gt;3.0.CO;2-O}}</ref>",
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
            syntax="wikitext",
        ),
        Row(
            "{{cite journal|doi=10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O|title=x}}",
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
            syntax="wikitext",
        ),
    ],
    "tex_escapes_are_undone": [
        Row(r"doi = {10.1007/978-3-319-24277-4\_9}", ["10.1007/978-3-319-24277-4_9"], syntax="bibtex"),
        Row(r"\doi{10.1000/abc\_def}", ["10.1000/abc_def"], ["doi-label"], syntax="latex"),
        Row(
            r"10.1000/a{\_}b 10.1000/c\textunderscore{}d 10.1000/e\textunderscore f",
            ["10.1000/a_b", "10.1000/c_d", "10.1000/e_f"],
            syntax="latex",
        ),
        Row(
            r"10.1000/x\%y 10.1000/a\#b 10.1000/p\-q\allowbreak r",
            ["10.1000/x%y", "10.1000/a#b", "10.1000/pqr"],
            syntax="latex",
        ),
        Row(
            r"10.1002/1097-4571(199806)49:8\textless 693::AID-ASI4$>$3.0.CO;2-O",
            ["10.1002/1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
            syntax="latex",
        ),
    ],
    "tex_arguments_and_values_end_a_doi": [
        Row(r"\url{https://doi.org/10.1000/182}text", ["10.1000/182"], syntax="latex"),
        Row(
            r"\href{https://doi.org/10.1000/182}{10.1000/183}", ["10.1000/182", "10.1000/183"], syntax="latex"
        ),
        Row('@article{k, doi = "10.1000/182", title = {x}}', ["10.1000/182"], ["doi-label"], syntax="bibtex"),
        Row(
            "@article{k, doi = {10.1002/{(SICI)}1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O}}",
            ["10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"],
            ["doi-label"],
            syntax="bibtex",
        ),
    ],
    "tex_whitespace_and_comments": [
        Row(r"10.1000/182~is 10.1000/183\\next", ["10.1000/182", "10.1000/183"], syntax="latex"),
        Row("10.1000/182 % 10.1000/commented\n10.1000/184", ["10.1000/182", "10.1000/184"], syntax="latex"),
        Row(r"\url{https://doi.org/10.1000/a%2Fb} % 10.1000/commented", ["10.1000/a/b"], syntax="latex"),
        Row("@misc{k, note = {10.1000/50%off}}", ["10.1000/50%off"], syntax="bibtex"),
    ],
    "csv_fields_end_a_doi": [
        Row("doi,10.1000/188,title", ["10.1000/188"], syntax="csv"),
        Row(
            "id;DOI;year\n1;10.1371/journal.pbio.0020334;2004", ["10.1371/journal.pbio.0020334"], syntax="csv"
        ),
        Row('a\tb\n"x, 10.1000/1"\t10.1000/2', ["10.1000/1", "10.1000/2"], syntax="csv"),
    ],
    "csv_doi_column_is_a_label": [
        Row("Title,DI\nx,10.5/100\n", ["10.5/100"], ["doi-label"], syntax="csv"),
    ],
    "json_strings_end_a_doi": [
        Row(
            '{"DOI": "10.1000\\/182", "x": "see 10.1000/183"}',
            ["10.1000/182", "10.1000/183"],
            ["doi-label", "bare"],
            syntax="json",
        ),
        Row('["10.1000\\u002F184","10.1000/185"]', ["10.1000/184", "10.1000/185"], syntax="json"),
    ],
    "xml_element_naming_a_doi_is_a_label": [
        Row(
            '<article-meta><article-id pub-id-type="doi">10.5/100</article-id>'
            '<article-id pub-id-type="pmid">10.6/1</article-id></article-meta>',
            ["10.5/100"],
            ["doi-label"],
            kind="html",
        ),
        Row(
            '<ArticleId IdType="doi">\n  10.1038/nature12373</ArticleId>',
            ["10.1038/nature12373"],
            ["doi-label"],
            kind="html",
        ),
        Row('<ELocationID EIdType="doi" ValidYN="Y">10.7/2</ELocationID>', ["10.7/2"], kind="html"),
        Row("<doi>10.8/3</doi> <idno type='DOI'>10.9/4</idno>", ["10.8/3", "10.9/4"], kind="html"),
        Row(
            '<identifier identifierType="DOI">10.5281/zenodo.1</identifier>',
            ["10.5281/zenodo.1"],
            kind="html",
        ),
        Row("<p>10.5/100</p>", [], kind="html"),  # no label: a registrant of one digit is no bare DOI
    ],
    "markdown_emphasis_closes_like_a_bracket": [
        Row(
            "read _10.1007/bf00576711_ and *10.1000/182*.",
            ["10.1007/bf00576711", "10.1000/182"],
            syntax="markdown",
        ),
        Row(
            "10.1007/978-3-319-24277-4_9 in **10.1000/x_y**",
            ["10.1007/978-3-319-24277-4_9", "10.1000/x_y"],
            syntax="markdown",
        ),
    ],
}

ALL_TABLES = {**CANONICAL, **START, **FORMS, **ENDS, **CLEANING, **REPORTED, **SYNTAX}


# §8 Derived DOIs (only when asked): each row read with every source asked for; read without
# the option, none of its derived DOIs is a hit (tests/test_derive.py).
DERIVED = {
    "derived_arxiv_new_style": [
        Row("arXiv preprint arXiv:1706.03762, 2017.", ["10.48550/arxiv.1706.03762"], ["derived-arxiv"]),
        Row("ARXIV:0704.0001 and arxiv:1412.9999", ["10.48550/arxiv.0704.0001", "10.48550/arxiv.1412.9999"]),
        Row("https://arxiv.org/abs/2101.00001v2.", ["10.48550/arxiv.2101.00001"]),  # the version dropped
        Row("HTTP://WWW.ArXiv.org/pdf/1501.00001.pdf", ["10.48550/arxiv.1501.00001"]),
        Row("arxiv.org/abs/2312.12345?context=cs#x", ["10.48550/arxiv.2312.12345"]),
    ],
    "derived_arxiv_old_style": [
        Row("arXiv:hep-th/9901001v3", ["10.48550/arxiv.hep-th/9901001"]),
        # the subject class dropped, as arXiv's preferred external form has it
        Row("see arXiv:math.GT/0309136.", ["10.48550/arxiv.math/0309136"]),
        Row("https://arxiv.org/abs/cond-mat/0102536", ["10.48550/arxiv.cond-mat/0102536"]),
    ],
    "derived_arxiv_ids_of_no_shape": [
        Row("arXiv:1413.0001", []),  # month 13
        Row("arXiv:1501.0001", []),  # four digits after 1412
        Row("arXiv:0612.12345", []),  # five digits before 1501
        Row("arXiv:1706.037621", []),  # a digit too many
        Row("export.arxiv.org/abs/1706.03762", []),  # another host
    ],
    "derived_zenodo": [
        Row("https://zenodo.org/records/7654321", ["10.5281/zenodo.7654321"], ["derived-zenodo"]),
        Row("(zenodo.org/record/42/files/x.pdf)", ["10.5281/zenodo.42"]),
        Row("zenodo.org/records/123abc", []),
    ],
    "derived_ssrn": [
        Row(
            "https://papers.ssrn.com/sol3/papers.cfm?abstract_id=3141.",
            ["10.2139/ssrn.3141"],
            ["derived-ssrn"],
        ),
        Row("SSRN: https://ssrn.com/abstract=2999999", ["10.2139/ssrn.2999999"]),
    ],
    "derived_elife": [
        Row("https://elifesciences.org/articles/05826", ["10.7554/elife.05826"], ["derived-elife"]),
    ],
    "derived_peerj": [
        Row("https://peerj.com/articles/1234/", ["10.7717/peerj.1234"], ["derived-peerj"]),
        Row("peerj.com/articles/cs-103", ["10.7717/peerj-cs.103"]),
    ],
    "derived_nature_two_shapes": [
        Row(
            "https://www.nature.com/articles/s41586-020-2649-2",
            ["10.1038/s41586-020-2649-2"],
            ["derived-nature"],
        ),
        Row("nature.com/articles/s41467-019-13056-X.", ["10.1038/s41467-019-13056-x"]),
        Row("http://www.nature.com/articles/nature14539", ["10.1038/nature14539"]),
        # any other article ID is no derived hit: its DOI is not always the ID (cr20174)
        Row("nature.com/articles/ncomms1234 nature.com/articles/cr20174", []),
    ],
    "derived_bibtex_eprint_of_arxiv": [
        Row(
            '@article{v, eprint = "2106.05038", archivePrefix = "arXiv", primaryClass = "cs.LG"}',
            ["10.48550/arxiv.2106.05038"],
            ["derived-arxiv"],
            syntax="bibtex",
        ),
        # biblatex's field, names and the value in any ASCII case, a value in braces or bare
        Row(
            "@online{w,\n  EPRINTTYPE = {ARXIV},\n  Eprint = {hep-th/9901001v2}\n}",
            ["10.48550/arxiv.hep-th/9901001"],
            syntax="bibtex",
        ),
        Row(
            "@misc{x, archiveprefix = arxiv, eprint = 1706.03762}",
            ["10.48550/arxiv.1706.03762"],
            syntax="bibtex",
        ),
        # each entry by its own fields: the second names another archive, the third none
        Row(
            "@article{a, eprint={2101.00001}, archivePrefix={arXiv}}"
            "@article{b, eprint={2101.00002}, archivePrefix={HAL}}"
            "@article{c, eprint={2101.00003}}",
            ["10.48550/arxiv.2101.00001"],
            syntax="bibtex",
        ),
        Row("@article{d, eprint={hal-01234567}, eprinttype={arxiv}}", [], syntax="bibtex"),  # no arXiv ID
        Row('eprint = "2106.05038", archivePrefix = "arXiv"', [], syntax=None),  # prose: no BibTeX field
    ],
    "derived_link_is_one_occurrence": [
        Row(
            '<a href="https://arxiv.org/abs/1706.03762">arXiv:1706.03762</a>',
            ["10.48550/arxiv.1706.03762"],
            ["derived-arxiv"],
            kind="html",
        ),
        Row(
            "[arXiv:1706.03762](https://arxiv.org/abs/1706.03762)",
            ["10.48550/arxiv.1706.03762"],
            syntax="markdown",
        ),
    ],
    "derived_beside_the_doi": [
        Row(
            "arXiv:1706.03762 (https://doi.org/10.48550/arXiv.1706.03762)",
            ["10.48550/arxiv.1706.03762", "10.48550/arxiv.1706.03762"],
            ["derived-arxiv", "resolver-url"],
        ),
    ],
}

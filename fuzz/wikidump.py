"""MediaWiki XML dumps as MediaWiki writes them (export schema 0.11: the site's header, then a
<page> per page with its revisions, text escaped by htmlspecialchars), and ElementTree's reading
of one: the reference the dump reader (formats/mediawiki.py) is held to by the tests and the
`wikidump` fuzz target."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field

from extractor.pipeline.formats.mediawiki import Page

HEADER = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.mediawiki.org/xml/export-0.11/ http://www.mediawiki.org/xml/export-0.11.xsd" version="0.11" xml:lang="en">
  <siteinfo>
    <sitename>Wikipedia</sitename>
    <dbname>enwiki</dbname>
    <base>https://en.wikipedia.org/wiki/Main_Page</base>
    <generator>MediaWiki 1.43.0-wmf.8</generator>
    <case>first-letter</case>
    <namespaces>
      <namespace key="-2" case="first-letter">Media</namespace>
      <namespace key="0" case="first-letter" />
      <namespace key="1" case="first-letter">Talk</namespace>
      <namespace key="10" case="first-letter">Template</namespace>
    </namespaces>
  </siteinfo>
"""
FOOTER = "</mediawiki>\n"


def escape(text: str, quotes: bool = True) -> str:
    """PHP's htmlspecialchars (ENT_QUOTES: MediaWiki's element text and attributes)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;").replace("'", "&#039;") if quotes else text


@dataclass
class WikiPage:
    title: str
    text: str | None
    page_id: int
    ns: int = 0
    revision_id: int = 0
    timestamp: str = "2024-05-01T12:00:00Z"
    redirect: str | None = None
    older: Sequence[str] = field(default_factory=tuple)  # earlier revisions' texts (a history dump)

    def xml(self) -> str:
        out = [
            "  <page>\n",
            f"    <title>{escape(self.title)}</title>\n",
            f"    <ns>{self.ns}</ns>\n",
            f"    <id>{self.page_id}</id>\n",
        ]
        if self.redirect is not None:
            out.append(f'    <redirect title="{escape(self.redirect)}" />\n')
        revs = [*self.older, self.text]
        for i, text in enumerate(revs):
            rid = self.revision_id or self.page_id * 10
            rid = rid - (len(revs) - 1 - i)
            out += [
                "    <revision>\n",
                f"      <id>{rid}</id>\n",
                f"      <parentid>{rid - 1}</parentid>\n",
                f"      <timestamp>{self.timestamp}</timestamp>\n",
                "      <contributor>\n",
                "        <username>Example &amp; Co</username>\n",
                f"        <id>{900000 + i}</id>\n",
                "      </contributor>\n",
                "      <comment>cite &lt;ref&gt; tidy</comment>\n",
                "      <origin>" + str(rid) + "</origin>\n",
                "      <model>wikitext</model>\n",
                "      <format>text/x-wiki</format>\n",
            ]
            if text is None:
                out.append('      <text bytes="0" deleted="deleted" />\n')
            else:
                size = len(text.encode("utf-8"))
                out.append(
                    f'      <text bytes="{size}" sha1="x" xml:space="preserve">{escape(text)}</text>\n'
                )
            out += ["      <sha1>x</sha1>\n", "    </revision>\n"]
        out.append("  </page>\n")
        return "".join(out)


def dump_text(pages: Sequence[WikiPage]) -> str:
    return HEADER + "".join(p.xml() for p in pages) + FOOTER


_NS = "{http://www.mediawiki.org/xml/export-0.11/}"


def elementtree_pages(xml: str) -> list[Page]:
    """The reference reading of a dump: each page's title, ids, timestamp, redirect and last
    revision's text (None: deleted), by ElementTree."""
    root = ET.fromstring(xml)
    out = []
    for page in root.iter(_NS + "page"):
        last = page.findall(_NS + "revision")[-1]
        text_el = last.find(_NS + "text")
        text = None if text_el is None or text_el.get("deleted") else (text_el.text or "")
        out.append(
            Page(
                page.findtext(_NS + "title") or "",
                int(page.findtext(_NS + "ns") or 0),
                int(page.findtext(_NS + "id") or 0),
                int(last.findtext(_NS + "id") or 0),
                last.findtext(_NS + "timestamp"),
                page.find(_NS + "redirect") is not None,
                text,
            )
        )
    return out

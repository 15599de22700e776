"""Check the built documentation site in a real, headless browser.

Run it after building the site::

    sphinx-build -W --keep-going -b html docs docs/_build/html
    python docs/check_site.py

It needs Playwright's Python package (``pip install playwright``) and a
Chromium on the machine (``--browser``, by default ``$CHROMIUM`` or the
first of ``chromium`` and ``chromium-browser`` on the path); it downloads
no browser.  The site is served from ``127.0.0.1`` by a server started
here, because a browser treats ``file://`` pages differently (the search
page, for one, loads its index by script).

What it checks, each a line of the report.  Read from the HTML of every
page (so that it covers pages no browser opens):

* every internal link (``href``) and image (``src``) points to a file that
  exists, and every ``#fragment`` to an ``id`` of that file;
* every image has alt text, and every page one ``<h1>`` title;
* no text that should have been rendered shows as text: no reStructuredText
  or MyST role (``:math:``, ``{doc}``), no TeX outside the maths elements
  (``\\frac``, ``$$``), no docutils error box and no Sphinx "??" or
  "Unknown ..." marker;
* nothing is fetched from the network: no script, stylesheet, image or frame
  from another host (the site works offline);
* each method page has formulas, a figure, its parameters with their
  defaults and a link to its NumPy source; each API page documents every
  function and class with a ``[source]`` link;
* every relative link of the README, the front page, resolves on the site.

And in a real browser, with every request that leaves the local server
refused and reported:

* a page of each kind (front, user guide, API index and an API page, the
  methods index and a method page, a tutorial, the theory, the gallery and
  one of its examples, the benchmarks) loads with no console error or
  uncaught exception, with every image decoded;
* on each of them with maths, MathJax has rendered every formula and none
  is a TeX error;
* the search finds "perplexity", "UMAP" and a method's name;
* at a phone's width (390 px) the front page, a method page and the theory
  do not scroll sideways and their text stays at a readable size;
* at a laptop's width (1280 px) no display formula of the theory or of any
  method page is wider than its column, where a reader would have to
  scroll it to read its end.

Screenshots of each page go to ``docs/_build/screenshots/`` (``--screenshots``),
the narrow ones as ``*_narrow.png``, to look at.

The exit status is 0 when every check passes and 1 otherwise.
"""

from __future__ import annotations

import argparse
import functools
import html.parser
import http.server
import os
import re
import shutil
import sys
import threading
import urllib.parse
from pathlib import Path

DOCS = Path(__file__).resolve().parent

#: the pages opened in the browser, one of each kind: (name, path in the site)
PAGES = [
    ("front", "index.html"),
    ("guide", "guide/methods.html"),
    ("api_index", "api/index.html"),
    ("api", "api/generated/smallvis.embed.html"),
    ("methods", "_generated/methods/index.html"),
    ("method", "_generated/methods/tsne.html"),
    ("tutorial", "_generated/tutorials/01_sne_by_hand.html"),
    ("theory", "theory.html"),
    ("benchmarks", "project/benchmarks.html"),
]
#: pages opened only when the site has them (the gallery's first example
#: is found in the gallery's folder)
OPTIONAL_PAGES = [
    ("gallery", "gallery/index.html"),
]
#: the pages shown at a phone's width
NARROW_PAGES = ("front", "method", "theory")
NARROW_VIEWPORT = {"width": 390, "height": 844}
#: the window of every other check
LAPTOP_VIEWPORT = {"width": 1280, "height": 900}
#: words the search must find; a method's name is added from the site
SEARCH_WORDS = ("perplexity", "UMAP")

PlaywrightTimeout = TimeoutError  # replaced by Playwright's own once it is imported


# -- links, read from the HTML ---------------------------------------------------

def check_links(site: Path) -> list[str]:
    """Every internal link and image of every page, and each fragment's target."""
    problems = []
    parsed = {}

    def page(path):
        if path not in parsed:
            parsed[path] = _parse_page(path)
        return parsed[path]

    pages = sorted(site.rglob("*.html"))
    for source in pages:
        for kind, value in page(source).links:
            url = urllib.parse.urlsplit(value)
            if url.scheme or url.netloc or value.startswith(("mailto:", "data:", "javascript:")):
                continue
            target = source if not url.path else (source.parent / urllib.parse.unquote(url.path))
            target = Path(os.path.normpath(target))
            where = f"{source.relative_to(site)}: {kind} {value}"
            if site not in target.parents and target != site:
                problems.append(f"{where} leaves the site")
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{where} points to a missing file")
                continue
            if url.fragment and target.suffix == ".html":
                fragment = urllib.parse.unquote(url.fragment)
                if fragment not in page(target).ids:
                    problems.append(f"{where}: no id {fragment!r} in {target.relative_to(site)}")
    return problems, len(pages)


# -- what every page's HTML must hold ----------------------------------------------

#: elements whose text is code or maths source, not prose
_SOURCE_TAGS = {"code", "pre", "script", "style", "kbd", "samp", "tt", "textarea",
                "mjx-container", "math"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
         "source", "track", "wbr"}
#: text that means something was not rendered: (pattern, what it is)
RAW_TEXT = [
    (re.compile(r":(?:math|func|class|meth|doc|ref|attr|mod|data|obj|numref|eq|term)"
                r":`"), "a reStructuredText role"),
    (re.compile(r"\{(?:math|doc|ref|func|class|meth|mod|attr|data|numref|eq|term)\}`"),
     "a MyST role"),
    (re.compile(r"\\(?:frac|sum|alpha|beta|gamma|sigma|mathrm|mathbf|left|right|cdot|"
                r"partial|sqrt|log|exp|begin|end)(?![A-Za-z])"), "TeX outside the maths"),
    (re.compile(r"\$\$"), "TeX display delimiters"),
    (re.compile(r"(?<![\w$])\$[^$\s][^$]{0,60}?[\\^_][^$]{0,60}?\$"), "inline TeX"),
    (re.compile(r"\?\?"), "Sphinx's '??' for a missing reference"),
    (re.compile(r"\bUnknown (?:interpreted text role|directive|target)"), "a docutils error"),
]


class _HtmlParser(html.parser.HTMLParser):
    """What one page's checks need: ids, links, images, titles, prose, API entries."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []        # (attribute, value)
        self.images = []       # (src, alt or None)
        self.external = []     # (tag, url) of resources loaded from another host
        self.h1 = 0
        self.text = []         # prose, outside code and maths
        self.n_math = 0
        self.error_boxes = 0
        self.api_entries = []  # [kind, id, has a [source] link]
        self._stack = []       # (tag, is source, opens an API entry)
        self._entry = None

    def _in_source(self):
        return any(source for _, source, _ in self._stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for name in ("href", "src"):
            value = attrs.get(name)
            if value and tag in ("a", "img", "link", "script", "source", "iframe"):
                self.links.append((f"<{tag} {name}>", value))
        url = attrs.get("src") if tag != "link" else (
            attrs.get("href") if {"stylesheet", "icon", "preload", "modulepreload"}
            & set((attrs.get("rel") or "").split()) else None)
        if url and tag in ("script", "link", "img", "iframe", "source", "video", "audio") \
                and urllib.parse.urlsplit(url).scheme in ("http", "https", ""):
            if urllib.parse.urlsplit(url).netloc or url.startswith("//"):
                self.external.append((tag, url))
        if tag == "img":
            self.images.append((attrs.get("src"), attrs.get("alt")))
        if tag == "h1":
            self.h1 += 1
        if "math" in classes and tag in ("span", "div"):
            self.n_math += 1
        if "problematic" in classes or "system-message" in classes:
            self.error_boxes += 1
        if "viewcode-link" in classes and self._entry is not None:
            self._entry[2] = True
        opens_entry = False
        if tag == "dt" and self._stack and self._stack[-1][0] == "dl" \
                and self._stack[-1][2] and "sig" in classes:
            self._entry = [self._stack[-1][2], attrs.get("id"), False]
            self.api_entries.append(self._entry)
            opens_entry = True
        kind = None
        if tag == "dl" and "py" in classes:
            kind = next((c for c in classes if c in ("function", "class", "method",
                                                     "exception")), None)
        if tag not in _VOID:
            source = tag in _SOURCE_TAGS or "math" in classes or "highlight" in classes
            self._stack.append((tag, source, kind or opens_entry))

    def handle_endtag(self, tag):
        while self._stack:
            open_tag, _, entry = self._stack.pop()
            if open_tag == "dt" and entry is True:
                self._entry = None
            if open_tag == tag:
                break

    def handle_data(self, data):
        if not self._in_source():
            self.text.append(data)


def _parse_page(path):
    parser = _HtmlParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser


def page_problems(parser, where):
    """The problems of one page's HTML that need no other page."""
    problems = []
    for src, alt in parser.images:
        if not (alt or "").strip():
            problems.append(f"{where}: image {src} has no alt text")
    if parser.h1 != 1:
        problems.append(f"{where}: {parser.h1} <h1> titles, not one")
    prose = " ".join(parser.text)
    for pattern, what in RAW_TEXT:
        match = pattern.search(prose)
        if match:
            context = prose[max(0, match.start() - 40):match.end() + 40].replace("\n", " ")
            problems.append(f"{where}: {what} shows as text: ...{context.strip()}...")
    if parser.error_boxes:
        problems.append(f"{where}: {parser.error_boxes} docutils error boxes")
    for tag, url in parser.external:
        problems.append(f"{where}: <{tag}> fetched from the network: {url}")
    return problems


def method_page_problems(parser, where):
    """A method page shows its maths, a figure, its parameters and its NumPy source."""
    problems = []
    if parser.n_math == 0:
        problems.append(f"{where}: a method page with no formula")
    if not parser.images:
        problems.append(f"{where}: a method page with no figure")
    prose = " ".join(parser.text)
    if not re.search(r"\bparameter\s+default\b", prose):
        problems.append(f"{where}: no table of parameters with their defaults")
    if not any("_modules/" in value for kind, value in parser.links if kind == "<a href>"):
        problems.append(f"{where}: no link to the NumPy source of its unit")
    return problems


def api_page_problems(parser, where):
    """Every function and class of an API page has its ``[source]`` link."""
    missing = [ident or kind for kind, ident, has_source in parser.api_entries
               if not has_source]
    return [f"{where}: no [source] link for {name}" for name in missing]


def summary_link_problems(html_text, where):
    """Every entry of an API page's summary tables links to its documentation
    (an entry without a target renders as plain code)."""
    names = re.findall(r'<td><p><code class="xref py py-obj[^>]*><span class="pre">([^<]*)',
                       html_text)
    return [f"{where}: the summary entry {name} links nowhere" for name in names]


def readme_links(readme):
    """The README's relative links, as (target path, fragment)."""
    text = Path(readme).read_text(encoding="utf-8")
    links = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'(?:href|src)="([^"]+)"', text):
        url = urllib.parse.urlsplit(target)
        if url.scheme or url.netloc or not url.path:
            continue
        links.append((url.path, url.fragment))
    return links


def check_readme_links(site: Path, readme: Path) -> list[str]:
    """Each relative link of the README resolves in the repository and on the site.

    The front page includes the README with its ``docs/`` links made
    site-relative: ``docs/guide/scale.md`` is ``guide/scale.html`` there;
    an image is copied under ``_images``; any other file of the repository
    has no page on the site and is reported.
    """
    problems = []
    front = _parse_page(site / "index.html")
    hrefs = {urllib.parse.urlsplit(v).path for k, v in front.links}
    for path, fragment in readme_links(readme):
        if not (readme.parent / path).exists():
            problems.append(f"README: {path} does not exist in the repository")
            continue
        if not path.startswith("docs/"):
            problems.append(f"README: {path} is outside docs/ and has no page on the site")
            continue
        inner = path[len("docs/"):]
        if inner.endswith(".md"):
            page = inner[:-3] + ".html"
            if not (site / page).is_file() or page not in hrefs:
                problems.append(f"README: {path} is not the link {page} on the front page")
            elif fragment and fragment not in _parse_page(site / page).ids:
                problems.append(f"README: {path}#{fragment}: no such anchor on {page}")
        elif not any(h.endswith(Path(inner).name) for h in hrefs):
            problems.append(f"README: {path} is not on the front page")
    return problems


def check_html(site: Path, readme: Path | None = None) -> tuple[list[str], int]:
    """Every check that reads the site's HTML; returns the problems and pages read."""
    problems, n_pages = check_links(site)
    for path in sorted(site.rglob("*.html")):
        where = str(path.relative_to(site))
        parser = _parse_page(path)
        problems += page_problems(parser, where)
        if path.parent == site / "_generated" / "methods" and path.name != "index.html":
            problems += method_page_problems(parser, where)
        if path.parent == site / "api" / "generated":
            problems += api_page_problems(parser, where)
            problems += summary_link_problems(path.read_text(encoding="utf-8"), where)
    if readme is not None and readme.is_file():
        problems += check_readme_links(site, readme)
    return problems, n_pages


# -- the local server ------------------------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the report says what matters
        pass


def serve(site: Path):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def find_browser(given: str | None) -> str:
    for candidate in (given, os.environ.get("CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise SystemExit("no Chromium found: install it (Debian: apt-get install chromium) "
                     "or pass --browser PATH")


# -- the browser checks -------------------------------------------------------------

def _route_requests(page, base, refused):
    """Refuse, and note, every request that leaves the local server."""

    def handle(route):
        url = route.request.url
        if url.startswith(base) or url.startswith(("data:", "blob:")):
            return route.continue_()
        refused.append(url)
        return route.abort()

    page.route("**/*", handle)


def _console_error(msg):
    url = (msg.location or {}).get("url")
    return f"console error: {msg.text}" + (f" ({url})" if url else "")


def _open(context, base, path):
    """A page opened and settled, with the lists its listeners fill."""
    errors, refused = [], []
    page = context.new_page()
    page.on("console", lambda msg: errors.append(_console_error(msg))
            if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught exception: {exc}"))
    _route_requests(page, base, refused)
    response = page.goto(base + path, wait_until="load")
    try:
        page.wait_for_load_state("networkidle", timeout=60_000)
    except PlaywrightTimeout:
        pass  # a busy machine; the checks below wait for what they need
    return page, response, errors, refused


def _wait_for_maths(page):
    """Wait for MathJax to typeset the page; return (formulas, rendered, TeX errors)."""
    n_math = page.locator(".math").count()
    if not n_math:
        return 0, 0, []
    try:
        page.wait_for_function(
            "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
            " && document.querySelectorAll('mjx-container').length > 0", timeout=60_000)
        page.evaluate("() => MathJax.startup.promise")
    except PlaywrightTimeout:
        pass  # counted as not rendered below
    rendered = page.locator("mjx-container").count()
    merrors = page.locator("mjx-merror").evaluate_all(
        "els => els.map(e => e.getAttribute('data-mjx-error') || e.textContent)")
    return n_math, rendered, merrors


def check_page(context, base, name, path, shots):
    """Open one page; return its problems and a one-line summary."""
    problems = []
    page, response, errors, refused = _open(context, base, path)
    if response is None or not response.ok:
        problems.append(f"{name} ({path}): HTTP {response.status if response else 'no response'}")
    summary = ""
    n_math, rendered, merrors = _wait_for_maths(page)
    if n_math:
        summary = f"{n_math} formulas, {rendered} rendered by MathJax, {len(merrors)} TeX errors"
        if rendered < n_math:
            problems.append(f"{name}: only {rendered} of {n_math} formulas rendered")
        if merrors:
            problems.append(f"{name}: {len(merrors)} TeX errors, e.g. {merrors[:5]}")
    broken = page.evaluate(
        "() => Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
        ".map(i => i.getAttribute('src'))")
    problems += [f"{name}: image {src} did not load" for src in broken]
    problems += [f"{name}: {e}" for e in errors]
    problems += [f"{name}: refused request to {u} (outside the site)" for u in refused]
    page.screenshot(path=str(shots / f"{name}.png"))
    page.screenshot(path=str(shots / f"{name}_full.png"), full_page=True)
    if name == "theory":
        # a screenshot where the formulas are dense, at a readable size
        page.locator("#tsne").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "theory_maths.png"))
    n_images = page.evaluate("() => document.images.length")
    page.close()
    return problems, f"{name}: {path} loaded, {n_images} images" + (f", {summary}" if summary else "")


#: the smallest body text a phone's reader should get, in CSS pixels
MIN_FONT_PX = 14

#: The display formulas wider than the text column beside them, by the start
#: of their TeX (MathJax's ``mjx-math`` has the formula's own width).
WIDE_FORMULAS = """() => Array.from(document.querySelectorAll('div.math')).filter(d => {
    const m = d.querySelector('mjx-container mjx-math');
    return m && m.getBoundingClientRect().width > d.getBoundingClientRect().width + 1;
}).map(d => d.getAttribute('data-tex') || d.textContent.trim().slice(0, 60))"""


def wide_formula_pages(site: Path):
    """Every method page and the theory: the pages whose formulas a reader studies."""
    methods = sorted(p.relative_to(site).as_posix()
                     for p in (site / "_generated" / "methods").glob("*.html")
                     if p.name != "index.html")
    return [("theory", "theory.html")] + [(Path(p).stem, p) for p in methods]


def check_formula_widths(context, base, pages):
    """At a laptop's width no display formula runs past its column (it would scroll)."""
    problems = []
    for name, path in pages:
        page, _, errors, refused = _open(context, base, path)
        _wait_for_maths(page)
        wide = page.evaluate(WIDE_FORMULAS)
        page.close()
        problems += [f"{name}: {e}" for e in errors]
        problems += [f"{name}: a formula wider than the text column at "
                     f"{LAPTOP_VIEWPORT['width']} px: {tex!r}" for tex in wide]
    return problems, (f"formula widths: {len(pages)} pages (every method and the theory), "
                      f"{len(problems)} wider than their column")


def check_narrow(context, base, name, path, shots):
    """At a phone's width the page does not scroll sideways and its text stays readable."""
    page, _, errors, refused = _open(context, base, path)
    _wait_for_maths(page)
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    font = page.evaluate(
        "() => { const p = document.querySelector('article p') || document.querySelector('p');"
        " return p ? parseFloat(getComputedStyle(p).fontSize) : 0; }")
    page.screenshot(path=str(shots / f"{name}_narrow.png"))
    page.close()
    problems = [f"{name} (narrow): {e}" for e in errors]
    problems += [f"{name} (narrow): refused request to {u}" for u in refused]
    if width[0] > width[1] + 1:
        problems.append(f"{name} (narrow): the page is {width[0]} px wide in a "
                        f"{width[1]} px window and scrolls sideways")
    if font < MIN_FONT_PX:
        problems.append(f"{name} (narrow): body text at {font} px, below {MIN_FONT_PX} px")
    return problems, f"{name}: {path} at {width[1]} px wide, body text {font:g} px"


def check_search(context, base, shots, words):
    problems, found = [], []
    for word in words:
        page, _, errors, refused = _open(context, base, f"search.html?q={word}")
        results = page.locator("#search-results ul.search li")
        try:
            results.first.wait_for(timeout=60_000)
        except PlaywrightTimeout:
            pass  # no result: reported below
        n = results.count()
        page.screenshot(path=str(shots / f"search_{word}.png"))
        page.close()
        problems += [f"search {word!r}: {e}" for e in errors]
        problems += [f"search {word!r}: refused request to {u}" for u in refused]
        if n == 0:
            problems.append(f"search: no result for {word!r}")
        found.append(f"{n} pages for {word!r}")
    return problems, "search: " + ", ".join(found)


def site_pages(site: Path):
    """The pages to open: :data:`PAGES`, the gallery and its first example if built."""
    pages = list(PAGES) + [p for p in OPTIONAL_PAGES if (site / p[1]).is_file()]
    examples = sorted(p for p in (site / "gallery").glob("*.html") if p.name != "index.html"
                      and not p.name.startswith("sg_"))
    if examples:
        pages.append(("gallery_example", examples[0].relative_to(site).as_posix()))
    return pages


def a_method_name(site: Path, words=SEARCH_WORDS):
    """A method's name from the site's method pages, not already among ``words``."""
    taken = {w.lower() for w in words}
    names = sorted(p.stem for p in (site / "_generated" / "methods").glob("*.html")
                   if p.stem != "index" and p.stem.lower() not in taken)
    return names[-1] if names else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", default=str(DOCS / "_build" / "html"),
                        help="the built site (default: docs/_build/html)")
    parser.add_argument("--screenshots", default=str(DOCS / "_build" / "screenshots"))
    parser.add_argument("--browser", help="the Chromium executable")
    args = parser.parse_args(argv)

    site = Path(args.site).resolve()
    if not (site / "index.html").is_file():
        raise SystemExit(f"{site} has no index.html: build the site first")
    shots = Path(args.screenshots)
    shots.mkdir(parents=True, exist_ok=True)

    problems, lines = [], []
    html_problems, n_pages = check_html(site, DOCS.parent / "README.md")
    problems += html_problems
    lines.append(f"HTML: {n_pages} pages read (links, anchors, images and alt text, titles, "
                 f"raw text, network, method and API pages, README links): "
                 f"{len(html_problems)} problems")

    global PlaywrightTimeout
    from playwright.sync_api import TimeoutError as PlaywrightTimeout, sync_playwright

    words = list(SEARCH_WORDS) + [w for w in [a_method_name(site)] if w]
    server, base = serve(site)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=find_browser(args.browser),
                                                 headless=True)
            context = browser.new_context(viewport=LAPTOP_VIEWPORT)
            pages = site_pages(site)
            for name, path in pages:
                page_problems_, line = check_page(context, base, name, path, shots)
                problems += page_problems_
                lines.append(line)
            width_problems, line = check_formula_widths(context, base, wide_formula_pages(site))
            problems += width_problems
            lines.append(line)
            search_problems, line = check_search(context, base, shots, words)
            problems += search_problems
            lines.append(line)
            narrow = browser.new_context(viewport=NARROW_VIEWPORT, device_scale_factor=2,
                                         is_mobile=True, has_touch=True)
            for name, path in pages:
                if name in NARROW_PAGES:
                    narrow_problems, line = check_narrow(narrow, base, name, path, shots)
                    problems += narrow_problems
                    lines.append(line)
            browser.close()
    finally:
        server.shutdown()

    print("\n".join(lines))
    print(f"screenshots in {shots}")
    if problems:
        print(f"\n{len(problems)} problems:")
        print("\n".join(f"  {p}" for p in problems))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""StandardClassifier's labels on hand-made link pairs; CategoryClassifier on example folders."""

from __future__ import annotations

import pytest

from webcrawler.toolkit import CategoryClassifier, Link, Page, StandardClassifier

PAIRS = [
    ("http://h/a/b.html", "http://h/a/c.html", {"local", "sibling"}),
    ("http://h/a/b.html", "http://g/a/c.html", {"remote"}),
    ("http://h/a/b.html", "http://h:8080/a/b.html", {"remote"}),
    ("http://h/a/b.html", "http://h/a/b.html#part", {"local", "same-page"}),
    ("http://h/", "http://h/Arts/", {"local", "child", "descendant"}),
    ("http://h/a/", "http://h/a/b/c/d.html", {"local", "descendant"}),
    ("http://h/a/b/c.html", "http://h/a/b/", {"local", "parent", "ancestor"}),
    ("http://h/a/b/c.html", "http://h/", {"local", "ancestor"}),
    ("http://h/a/b/index.html", "http://h/a/b/c.html", {"local", "child", "descendant"}),
    ("http://h/a/b/c.html", "http://h/x/y.html", {"local"}),
]


@pytest.mark.parametrize(("source", "target", "expected"), PAIRS)
def test_relation_labels(source, target, expected):
    page = Page(source)
    page.links = [Link(target, source=page, element="a")]
    StandardClassifier().classify(page)
    assert page.links[0].labels == expected | {"hyperlink"}


@pytest.mark.parametrize(("element", "label"), [("a", "hyperlink"), ("area", "hyperlink"),
                                                 ("img", "image"), ("form", "form"),
                                                 ("frame", "frame"), ("iframe", "frame")])
def test_element_labels(element, label):
    page = Page("http://h/p.html")
    page.links = [Link("http://h/q.png", source=page, element=element)]
    StandardClassifier().classify(page)
    assert page.links[0].labels == {label, "local", "sibling"}


def test_category_classifier_scores_against_example_folders(tmp_path):
    for name, texts in {"baseball": ["pitcher batting inning home run", "inning pitcher strike"],
                        "cooking": ["recipe oven flour sugar bake", "bake bread oven yeast"]}.items():
        folder = tmp_path / name
        folder.mkdir()
        for i, text in enumerate(texts):
            (folder / f"{i}.html").write_text(f"<html><body><p>{text}</p></body></html>")
    classifier = CategoryClassifier({"baseball": tmp_path / "baseball",
                                     "cooking": str(tmp_path / "cooking")})
    page = Page("http://h/", title="Bread", text="mix flour and yeast, bake in a hot oven")
    classifier.classify(page)
    assert page.attributes["category"] == "cooking"
    scores = classifier.scores(page.text, page.title)
    assert float(page.attributes["category-score"]) == pytest.approx(scores["cooking"], abs=1e-4)
    assert scores["cooking"] > scores["baseball"] == 0.0


def test_category_classifier_fetches_example_urls(tree_web, settings):
    classifier = CategoryClassifier({"leaves": [tree_web.url("127.0.6.1", "/a/1")],
                                     "roots": [tree_web.url("127.0.6.1", "/")]}, settings=settings)
    page = Page("http://h/", title="a1", text="leaf")
    classifier.classify(page)
    assert page.attributes["category"] == "leaves"

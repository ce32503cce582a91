"""`checker verbatim`: the specs' verbatim fields sought in a copy of the document (the repository's,
document/, or any folder given): normalise.py says what is taken off both sides before they are compared,
document.py reads the document folder as untrusted input, fields.py lists a spec's verbatim
fields, match.py finds each one or the document's text nearest to it, whole.py says where a caption
or a sentence ends (a part of one cut at a word's end still reads as the document's words)."""

"""Lessons (issue 19): an ordered list of steps, each a state of the product, a short text
and optionally a question whose answer the product computes. PURE: no web framework.

* ``kinds``: the one declaration of the question kinds (their keys, the stages and
  choices, the editor's words), read by ``format``, ``schema`` and the lesson editor.
* ``format``: the lesson JSON (version 1) parsed and validated into ``Lesson`` (limits,
  errors naming the field path such as ``steps[2].question.row``); text stays plain text.
* ``states``: each step's state checked and priced exactly as a page link or a lab link is;
  ``model_state``: a step on a real model's head (its link kept; the model run at plan time).
* ``schema``: the lesson JSON Schema, built from ``format``'s tables and ``kinds``.
* ``link``: ``encode_lesson`` / ``decode_lesson``, the ``l=`` form of a lesson.
* ``answers``: ``answer_lesson(lesson)``, each question's answer from the engine; ``own``
  the teacher's own multiple-choice question as written, ``section`` a lab section's own
  question as the lab computes it.
* ``builtin``: the built-in lessons (JSON files) and their loader.
"""

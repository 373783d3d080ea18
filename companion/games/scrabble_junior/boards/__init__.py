"""Board layouts shipped with the Scrabble Junior engine, one text file each.

This folder is a package only so that the layout files travel with the
installed project (package data); the files are read through
`companion.games.scrabble_junior.layout.builtin_layout`.
"""

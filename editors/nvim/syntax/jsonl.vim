" Vim syntax file for JSON Lines (*.jsonl) agent sessions, from sessionls.
" Every line is one JSON text: JSON's own highlighting, line by line.
if exists("b:current_syntax")
  finish
endif
runtime! syntax/json.vim
unlet! b:current_syntax
" In JSON a } followed by { is a missing comma; here it is the next line's
" record.
silent! syntax clear jsonMissingCommaError
let b:current_syntax = "jsonl"

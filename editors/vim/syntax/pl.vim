" Vim/Neovim syntax for PL, the language of pcc (docs/LANGUAGE.md): the words of the TextMate
" grammar editors/pl.tmLanguage.json (tests/editors.rs checks both against the language).
" Install: copy editors/vim/syntax and editors/vim/ftdetect into ~/.config/nvim (or ~/.vim).
if exists("b:current_syntax")
  finish
endif

syn keyword plConditional if else while for in break continue return match
syn keyword plDeclaration fn let const struct
syn keyword plOperatorWord new
syn keyword plBoolean true false
syn keyword plNull null
syn keyword plType int float bool str map
" Built-ins only where they are called (`int` and `str` are types too).
syn match plBuiltin "\<\(print\|println\|len\|float\|int\|str\|fixed\|chr\|substr\|parse_int\|parse_float\|abs\|min\|max\|sqrt\|sin\|cos\|tan\|atan\|exp\|log\|floor\|ceil\|pow\|atan2\|argc\|arg\|read_line\|eof\|read_int\|assert\|exit\|clock_ns\|get\|set\|has\|delete\|keys\|push\|pop\|insert\|remove\|split\|join\|find\|replace\|trim\|starts_with\|ends_with\|to_upper\|to_lower\|sort\)\>\ze\s*("
syn match plFunction "\(\<fn\s\+\)\@<=\h\w*"
syn match plStruct "\(\<struct\s\+\)\@<=\h\w*"
syn match plNumber "\<0[xX]\x[0-9A-Fa-f_]*\>"
syn match plNumber "\<\d[0-9_]*\>"
syn match plFloat "\<\d[0-9_]*\(\.\d[0-9_]*\([eE][+-]\=\d\+\)\=\|[eE][+-]\=\d\+\)\>"
syn match plEscape "\\\(x\x\x\|[ntr\\"0]\)" contained
syn region plString start=+"+ skip=+\\\\\|\\"+ end=+"+ contains=plEscape
syn match plComment "//.*$"
syn region plComment start="/\*" end="\*/"

hi def link plConditional Conditional
hi def link plDeclaration Keyword
hi def link plOperatorWord Operator
hi def link plBoolean Boolean
hi def link plNull Constant
hi def link plType Type
hi def link plBuiltin Function
hi def link plFunction Function
hi def link plStruct Structure
hi def link plNumber Number
hi def link plFloat Float
hi def link plEscape SpecialChar
hi def link plString String
hi def link plComment Comment

let b:current_syntax = "pl"

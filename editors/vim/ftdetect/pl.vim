" PL files end in `.pl`, like Perl's: this claims them for PL (drop it where Perl lives).
autocmd BufRead,BufNewFile *.pl set filetype=pl

//! A generated program as a tree of statements and expressions, only as structured as shrinking
//! needs: a statement is a line (its expression) with nested bodies, an expression is text with
//! holes for sub-expressions. Shrinking edits the tree without knowing PL's types: an edit that
//! breaks the program is simply rejected by the compiler.

/// An expression: `parts[0] kids[0] parts[1] kids[1] … parts[n]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub parts: Vec<String>,
    pub kids: Vec<Expr>,
}

impl Expr {
    pub fn leaf(text: impl Into<String>) -> Expr {
        Expr {
            parts: vec![text.into()],
            kids: Vec::new(),
        }
    }

    /// `parts` around `kids`; `parts.len() == kids.len() + 1`.
    pub fn node(parts: &[&str], kids: Vec<Expr>) -> Expr {
        assert_eq!(parts.len(), kids.len() + 1);
        Expr {
            parts: parts.iter().map(|p| p.to_string()).collect(),
            kids,
        }
    }

    fn write(&self, out: &mut String) {
        for (i, part) in self.parts.iter().enumerate() {
            out.push_str(part);
            if let Some(kid) = self.kids.get(i) {
                kid.write(out);
            }
        }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn count(&self) -> usize {
        1 + self.kids.iter().map(Expr::count).sum::<usize>()
    }
}

/// A statement (or a top-level item): its first line, and the bodies nested in it, each closed
/// by a line of its own (`} else {`, `}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub line: Expr,
    pub bodies: Vec<Body>,
    /// Never removed by shrinking: a loop counter's increment, the fuel check that bounds calls
    /// (removing them could make a program run forever).
    pub keep: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub stmts: Vec<Stmt>,
    pub close: String,
}

impl Stmt {
    pub fn simple(line: Expr) -> Stmt {
        Stmt {
            line,
            bodies: Vec::new(),
            keep: false,
        }
    }

    pub fn nested(line: Expr, bodies: Vec<Body>) -> Stmt {
        Stmt {
            line,
            bodies,
            keep: false,
        }
    }

    fn write(&self, indent: usize, out: &mut String) {
        out.push_str(&"    ".repeat(indent));
        self.line.write(out);
        out.push('\n');
        for body in &self.bodies {
            for stmt in &body.stmts {
                stmt.write(indent + 1, out);
            }
            out.push_str(&"    ".repeat(indent));
            out.push_str(&body.close);
            out.push('\n');
        }
    }
}

/// A whole program: its items.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub header: String,
    pub items: Vec<Stmt>,
}

impl Program {
    pub fn text(&self) -> String {
        let mut out = self.header.clone();
        for item in &self.items {
            item.write(0, &mut out);
        }
        out
    }

    /// How many statements (items included) and expression nodes the program has: the size
    /// shrinking reduces.
    pub fn size(&self) -> (usize, usize) {
        let (mut stmts, mut exprs) = (0, 0);
        visit(&self.items, &mut |s| {
            stmts += 1;
            exprs += s.line.count();
        });
        (stmts, exprs)
    }
}

fn visit(stmts: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for stmt in stmts {
        f(stmt);
        for body in &stmt.bodies {
            visit(&body.stmts, f);
        }
    }
}

/// An edit of the statement tree, for shrinking.
#[derive(Clone, Copy, Debug)]
pub enum StmtEdit {
    /// Remove the statement.
    Remove,
    /// Replace it by the statements of its first body (an `if` by its `then` block, a loop by
    /// one pass of its body).
    Inline,
    /// Empty each of its bodies.
    Empty,
}

/// The program with statement number `target` (pre-order) edited, if the edit applies.
pub fn edit_stmt(program: &Program, target: usize, edit: StmtEdit) -> Option<Program> {
    let mut next = 0;
    let items = edit_in(&program.items, target, edit, &mut next)?;
    Some(Program {
        header: program.header.clone(),
        items,
    })
}

fn edit_in(stmts: &[Stmt], target: usize, edit: StmtEdit, next: &mut usize) -> Option<Vec<Stmt>> {
    let mut out = Vec::with_capacity(stmts.len());
    let mut done = None;
    for stmt in stmts {
        if done.is_some() || *next > target {
            out.push(stmt.clone());
            continue;
        }
        if *next == target {
            *next += 1;
            done = Some(match edit {
                StmtEdit::Remove if !stmt.keep => true,
                StmtEdit::Inline if !stmt.keep && !stmt.bodies.is_empty() => {
                    out.extend(stmt.bodies[0].stmts.iter().cloned());
                    true
                }
                StmtEdit::Empty if stmt.bodies.iter().any(|b| !b.stmts.is_empty()) => {
                    let mut emptied = stmt.clone();
                    for body in &mut emptied.bodies {
                        body.stmts.retain(|s| s.keep);
                    }
                    out.push(emptied);
                    true
                }
                _ => false,
            });
            if done == Some(false) {
                return None;
            }
            continue;
        }
        *next += 1;
        let mut copy = stmt.clone();
        for body in &mut copy.bodies {
            if done.is_none()
                && let Some(edited) = edit_in(&body.stmts, target, edit, next)
            {
                body.stmts = edited;
                done = Some(true);
            }
        }
        out.push(copy);
    }
    done.map(|_| out)
}

/// The program with expression node number `target` (pre-order over all statements' lines)
/// replaced by `with(node)`, if there is such a node and `with` gives a replacement.
pub fn edit_expr(
    program: &Program,
    target: usize,
    with: &dyn Fn(&Expr) -> Option<Expr>,
) -> Option<Program> {
    let mut copy = program.clone();
    let mut next = 0;
    let mut result = None;
    visit_mut(&mut copy.items, &mut |stmt| {
        if result.is_none() {
            result = replace_in(&mut stmt.line, target, with, &mut next);
        }
    });
    result.filter(|&done| done).map(|_| copy)
}

fn visit_mut(stmts: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for stmt in stmts {
        f(stmt);
        for body in &mut stmt.bodies {
            visit_mut(&mut body.stmts, f);
        }
    }
}

/// `Some(true)` once replaced, `Some(false)` if the target was found but `with` declined.
fn replace_in(
    expr: &mut Expr,
    target: usize,
    with: &dyn Fn(&Expr) -> Option<Expr>,
    next: &mut usize,
) -> Option<bool> {
    if *next == target {
        *next += 1;
        return Some(match with(expr) {
            Some(new) => {
                *expr = new;
                true
            }
            None => false,
        });
    }
    *next += 1;
    for kid in &mut expr.kids {
        if let Some(done) = replace_in(kid, target, with, next) {
            return Some(done);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Program {
        let sum = Expr::node(
            &["s = ", " + ", ";"],
            vec![Expr::leaf("s"), Expr::leaf("1")],
        );
        let body = Body {
            stmts: vec![Stmt::simple(sum)],
            close: "}".into(),
        };
        let cond = Expr::node(&["if ", " {"], vec![Expr::leaf("true")]);
        let func = Stmt::nested(
            Expr::leaf("fn main() {"),
            vec![Body {
                stmts: vec![
                    Stmt::simple(Expr::leaf("let s = 0;")),
                    Stmt::nested(cond, vec![body]),
                ],
                close: "}".into(),
            }],
        );
        Program {
            header: String::new(),
            items: vec![func],
        }
    }

    #[test]
    fn prints_nested_statements() {
        assert_eq!(
            sample().text(),
            "fn main() {\n    let s = 0;\n    if true {\n        s = s + 1;\n    }\n}\n"
        );
        assert_eq!(sample().size(), (4, 1 + 1 + 2 + 3));
    }

    #[test]
    fn edits_statements_by_preorder_number() {
        let p = sample();
        let inlined = edit_stmt(&p, 2, StmtEdit::Inline).unwrap();
        assert_eq!(
            inlined.text(),
            "fn main() {\n    let s = 0;\n    s = s + 1;\n}\n"
        );
        let removed = edit_stmt(&p, 3, StmtEdit::Remove).unwrap();
        assert_eq!(
            removed.text(),
            "fn main() {\n    let s = 0;\n    if true {\n    }\n}\n"
        );
        assert!(edit_stmt(&p, 1, StmtEdit::Inline).is_none());
        assert!(edit_stmt(&p, 9, StmtEdit::Remove).is_none());
    }

    #[test]
    fn edits_expressions_by_preorder_number() {
        let p = sample();
        // Nodes: `fn main() {`, `let s = 0;`, `if _ {`, `true`, `s = _ + _;`, `s`, `1`.
        let zero = edit_expr(&p, 6, &|_| Some(Expr::leaf("0"))).unwrap();
        assert!(zero.text().contains("s = s + 0;"));
        let kid = edit_expr(&p, 4, &|e| e.kids.first().cloned()).unwrap();
        assert!(kid.text().contains("        s\n"));
        assert!(edit_expr(&p, 3, &|_| None).is_none());
    }
}

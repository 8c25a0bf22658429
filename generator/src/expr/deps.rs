//! References between computed fields: which fields each one uses, a compile order in which
//! every field comes after the fields it uses, and the cycles that make such an order impossible.

use std::collections::VecDeque;
use std::ops::Range;

use super::ast::{Expr, ExprKind};
use super::functions::Function;

/// The computed fields `expr` refers to (indexes from `lookup`), with the span of the first
/// reference to each, in order of appearance. Names inside aggregates are relationships and
/// are skipped.
pub(crate) fn references(
    expr: &Expr,
    lookup: &dyn Fn(&str) -> Option<usize>,
) -> Vec<(usize, Range<usize>)> {
    let mut found = Vec::new();
    collect(expr, lookup, &mut found);
    found
}

fn collect(
    expr: &Expr,
    lookup: &dyn Fn(&str) -> Option<usize>,
    found: &mut Vec<(usize, Range<usize>)>,
) {
    match &expr.kind {
        ExprKind::Name(name) => {
            if let Some(index) = lookup(name)
                && !found.iter().any(|(seen, _)| *seen == index)
            {
                found.push((index, expr.span.clone()));
            }
        }
        ExprKind::Neg(inner) | ExprKind::Not(inner) | ExprKind::IsNull { operand: inner, .. } => {
            collect(inner, lookup, found);
        }
        ExprKind::Binary(_, left, right) => {
            collect(left, lookup, found);
            collect(right, lookup, found);
        }
        ExprKind::Call { name, args, .. } => {
            // An aggregate's argument names a relationship, never a computed field.
            if !matches!(Function::parse(name), Some(Function::Aggregate(_))) {
                for arg in args {
                    collect(arg, lookup, found);
                }
            }
        }
        ExprKind::Member { object, args, .. } => {
            collect(object, lookup, found);
            for arg in args.iter().flatten() {
                collect(arg, lookup, found);
            }
        }
        ExprKind::Int(_)
        | ExprKind::Real(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::Param(_)
        | ExprKind::Incoming(_) => {}
    }
}

/// The result of ordering the fields.
pub(crate) struct Order {
    /// Fields that can be compiled, each after the fields it uses.
    pub order: Vec<usize>,
    /// For each field on a cycle: the cycle starting and ending at that field.
    pub cycles: Vec<(usize, Vec<usize>)>,
    /// Fields not on a cycle that use one (directly or not): the field and the used field that
    /// leads to the cycle.
    pub blocked: Vec<(usize, usize)>,
}

/// Orders `count` fields whose uses are `uses[i]` (Kahn's algorithm; no recursion, so long
/// chains cannot overflow the stack).
pub(crate) fn order(uses: &[Vec<usize>]) -> Order {
    let count = uses.len();
    let mut pending: Vec<usize> = uses.iter().map(Vec::len).collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (user, used) in uses.iter().enumerate() {
        for &dep in used {
            users[dep].push(user);
        }
    }
    let mut queue: VecDeque<usize> = (0..count).filter(|&index| pending[index] == 0).collect();
    let mut order = Vec::with_capacity(count);
    while let Some(index) = queue.pop_front() {
        order.push(index);
        for &user in &users[index] {
            pending[user] -= 1;
            if pending[user] == 0 {
                queue.push_back(user);
            }
        }
    }
    let mut done = vec![false; count];
    for &index in &order {
        done[index] = true;
    }
    let mut cycles = Vec::new();
    let mut blocked = Vec::new();
    for start in (0..count).filter(|&index| !done[index]) {
        match path_back(start, uses, &done) {
            Some(cycle) => cycles.push((start, cycle)),
            None => {
                let dep = uses[start]
                    .iter()
                    .copied()
                    .find(|&dep| !done[dep])
                    .unwrap_or(start);
                blocked.push((start, dep));
            }
        }
    }
    Order {
        order,
        cycles,
        blocked,
    }
}

/// The shortest path `start -> ... -> start` through unfinished fields, if there is one.
fn path_back(start: usize, uses: &[Vec<usize>], done: &[bool]) -> Option<Vec<usize>> {
    let mut parent: Vec<Option<usize>> = vec![None; uses.len()];
    let mut seen = vec![false; uses.len()];
    let mut queue = VecDeque::from([start]);
    while let Some(index) = queue.pop_front() {
        for &dep in &uses[index] {
            if done[dep] {
                continue;
            }
            if dep == start {
                let mut path = vec![index];
                let mut at = index;
                while at != start {
                    at = parent[at]?;
                    path.push(at);
                }
                path.reverse();
                path.push(start);
                return Some(path);
            }
            if !seen[dep] {
                seen[dep] = true;
                parent[dep] = Some(index);
                queue.push_back(dep);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_dependencies_first() {
        let result = order(&[vec![1], vec![2], vec![]]);
        assert_eq!(result.order, vec![2, 1, 0]);
        assert!(result.cycles.is_empty() && result.blocked.is_empty());
    }

    #[test]
    fn finds_cycles_and_what_they_block() {
        // 0 -> 1 -> 2 -> 0, 3 -> 0, 4 -> 4
        let result = order(&[vec![1], vec![2], vec![0], vec![0], vec![4]]);
        assert!(result.order.is_empty());
        assert_eq!(
            result.cycles,
            vec![
                (0, vec![0, 1, 2, 0]),
                (1, vec![1, 2, 0, 1]),
                (2, vec![2, 0, 1, 2]),
                (4, vec![4, 4])
            ]
        );
        assert_eq!(result.blocked, vec![(3, 0)]);
    }

    #[test]
    fn long_chains_do_not_recurse() {
        let uses: Vec<Vec<usize>> = (0..100_000)
            .map(|index| if index == 0 { vec![] } else { vec![index - 1] })
            .collect();
        assert_eq!(order(&uses).order.len(), 100_000);
    }
}

//! Typed indices: each kind of id (a function, a struct, a block, a local…) is its own type, so
//! one cannot be passed where another is expected, and [`IdVec`] is a vector indexed only by its
//! own kind of id (like rustc's `IndexVec` or Cranelift's `PrimaryMap`).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An index type made by [`define_id!`].
pub trait Id: Copy + Eq {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

/// Defines `$name`, a `u32` newtype implementing [`Id`]. `u32` as rustc and Cranelift do: ids
/// fill MIR's operands and terminators, and no program has 2^32 blocks or locals. It prints
/// (`{}` and `{:?}`) as the bare number, as the `usize` it replaced did, so every text that
/// shows an id (MIR, profiles, messages) is unchanged.
#[macro_export]
macro_rules! define_id {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            pub fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("fewer than 2^32 ids"))
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        // The same for `IdVec`; the inherent methods above need no import of the trait.
        impl $crate::id::Id for $name {
            fn new(index: usize) -> Self {
                $name::new(index)
            }

            fn index(self) -> usize {
                $name::index(self)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

/// A vector whose positions are the ids `I`: `v[id]`, and [`IdVec::push`] returns the new
/// element's id.
#[derive(Clone, PartialEq, Eq)]
pub struct IdVec<I, T> {
    items: Vec<T>,
    id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    pub fn new() -> Self {
        Self::from_vec(Vec::new())
    }

    /// The vector whose element `I::new(i)` is `items[i]`.
    pub fn from_vec(items: Vec<T>) -> Self {
        IdVec {
            items,
            id: PhantomData,
        }
    }

    /// `n` copies of `value`.
    pub fn from_elem(value: T, n: usize) -> Self
    where
        T: Clone,
    {
        Self::from_vec(vec![value; n])
    }

    /// Appends `value` and returns its id.
    pub fn push(&mut self, value: T) -> I {
        let id = self.next_id();
        self.items.push(value);
        id
    }

    /// The id the next [`IdVec::push`] returns.
    pub fn next_id(&self) -> I {
        I::new(self.items.len())
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }

    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.items.get_mut(id.index())
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// The ids, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + use<I, T> {
        (0..self.items.len()).map(I::new)
    }

    /// `(id, element)` pairs, in order.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> {
        self.items.iter().enumerate().map(|(i, t)| (I::new(i), t))
    }

    /// `(id, element)` pairs, in order, for rewriting.
    pub fn iter_enumerated_mut(&mut self) -> impl DoubleEndedIterator<Item = (I, &mut T)> {
        self.items
            .iter_mut()
            .enumerate()
            .map(|(i, t)| (I::new(i), t))
    }

    /// The id of the first element that satisfies `predicate`.
    pub fn position(&self, predicate: impl FnMut(&T) -> bool) -> Option<I> {
        self.items.iter().position(predicate).map(I::new)
    }

    /// The elements in id order, as a plain vector.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl<I: Id, T> Default for IdVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Id, T> Index<I> for IdVec<I, T> {
    type Output = T;
    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        Self::from_vec(iter.into_iter().collect())
    }
}

impl<I: Id, T> From<Vec<T>> for IdVec<I, T> {
    fn from(items: Vec<T>) -> Self {
        Self::from_vec(items)
    }
}

impl<I: Id, T> Extend<T> for IdVec<I, T> {
    fn extend<It: IntoIterator<Item = T>>(&mut self, iter: It) {
        self.items.extend(iter);
    }
}

impl<I, T> IntoIterator for IdVec<I, T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, I, T> IntoIterator for &'a IdVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<'a, I, T> IntoIterator for &'a mut IdVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter_mut()
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

//! Values over a programme of any length kept in a bounded number of buckets: when the buckets
//! are full, neighbours merge and each bucket spans twice as many values (the graphs and the
//! strip of a two-hour file take as much memory as a minute's).

/// The most buckets kept (the page's graphs are narrower).
pub const MOST: usize = 2048;

/// What a bucket holds: it takes one value more, or a neighbour's values.
pub trait Bucket: Clone {
    fn merge(&mut self, later: &Self);
}

/// Buckets of `span` values each (the last may hold fewer), from `start` seconds.
#[derive(Clone, Debug)]
pub struct Series<B> {
    pub buckets: Vec<B>,
    /// Values a bucket takes, and how many the last one holds.
    span: usize,
    in_last: usize,
    /// The time of each bucket's first value.
    pub times: Vec<f64>,
}

impl<B: Bucket> Default for Series<B> {
    fn default() -> Self {
        Self {
            buckets: Vec::new(),
            span: 1,
            in_last: 0,
            times: Vec::new(),
        }
    }
}

impl<B: Bucket> Series<B> {
    /// One value more, at `time`.
    pub fn push(&mut self, time: f64, value: B) {
        // (Full, with its last bucket full too: halved, which may leave the last room.)
        if self.buckets.len() == MOST && self.in_last == self.span {
            self.halve();
        }
        match self.buckets.last_mut() {
            Some(last) if self.in_last < self.span => {
                last.merge(&value);
                self.in_last += 1;
            }
            _ => {
                self.buckets.push(value);
                self.times.push(time);
                self.in_last = 1;
            }
        }
    }

    /// Neighbours merged: half as many buckets, each twice as long.
    fn halve(&mut self) {
        let mut merged = Vec::with_capacity(MOST / 2 + 1);
        let mut times = Vec::with_capacity(MOST / 2 + 1);
        for (pair, time) in self.buckets.chunks(2).zip(self.times.iter().step_by(2)) {
            let mut bucket = pair[0].clone();
            if let Some(later) = pair.get(1) {
                bucket.merge(later);
            }
            merged.push(bucket);
            times.push(*time);
        }
        // The last bucket, merged with the one before it, holds a full span and what the last
        // held; alone it holds what it held.
        self.in_last = match self.buckets.len() % 2 {
            0 => self.span + self.in_last,
            _ => self.in_last,
        };
        self.span *= 2;
        (self.buckets, self.times) = (merged, times);
    }

    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Sum(u64, u64);

    impl Bucket for Sum {
        fn merge(&mut self, later: &Self) {
            (self.0, self.1) = (self.0 + later.0, self.1 + later.1);
        }
    }

    #[test]
    fn buckets_stay_few_and_each_holds_its_span_in_order() {
        let mut series = Series::default();
        let n = 5 * MOST as u64 + 17;
        for i in 0..n {
            series.push(i as f64, Sum(i, 1));
        }
        assert!(series.buckets.len() <= MOST);
        // Every value is counted once, in order: each bucket's values are consecutive.
        let counted: u64 = series.buckets.iter().map(|b| b.1).sum();
        assert_eq!(counted, n);
        let total: u64 = series.buckets.iter().map(|b| b.0).sum();
        assert_eq!(total, n * (n - 1) / 2);
        let span = series.buckets[0].1;
        assert!(series.buckets[..series.buckets.len() - 1].iter().all(|b| b.1 == span));
        assert_eq!(series.times[1], span as f64);
    }
}

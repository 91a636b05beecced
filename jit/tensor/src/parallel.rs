//! [`parallel_for`]: runs `f(0..n)` on the calling thread together with rayon workers, the way
//! ATen's `at::parallel_for` runs on an OpenMP team whose thread 0 is the caller.
//!
//! Why not `(0..n).into_par_iter()`: called from outside the pool (the Python thread is), rayon
//! queues the job, wakes a worker and blocks the caller, so the work depends on the workers
//! alone. On the 2-vCPU benchmark VM, in the alternating pattern of `scripts/bench` (eager,
//! compiled, `backend="eager"`, ...), `perf sched timehist` showed both rayon workers queued on
//! one CPU, yielding to each other, while the blocked caller had held the other; the second
//! worker then ran no task in 9 of 10 W8 calls, and the call ran serially (1.2-1.4 ms, against
//! ~0.7 ms with both CPUs). Here the caller works from the first moment, and one helper job per
//! rayon worker is queued, so whichever workers the scheduler runs join in. A helper that starts
//! after the last task was claimed returns at once. One helper per worker rather than one fewer:
//! with `threads - 1`, the one job often went to the worker sharing the caller's CPU while the
//! other CPU's worker had nothing to take, and W1 ran serially in about half its calls.
//!
//! Tasks are claimed from a shared counter, so they balance dynamically. The caller returns only
//! after every claimed task has finished, which is what makes lending `f` (borrowed, not
//! `'static`) to the spawned helpers sound: a helper dereferences `f` only after claiming an
//! index below `n`, and no claim succeeds after the caller has stopped waiting.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The thread cap set by [`set_num_threads`] (`torch.set_num_threads`); 0 means the whole pool.
static MAX_THREADS: AtomicUsize = AtomicUsize::new(0);

/// How many threads the kernels use, the caller included (`torch.get_num_threads`): the value
/// last set, else the rayon pool's size (the machine's cores unless `RAYON_NUM_THREADS` says
/// otherwise).
pub fn num_threads() -> usize {
    match MAX_THREADS.load(Ordering::Relaxed) {
        0 => rayon::current_num_threads(),
        n => n,
    }
}

/// How many threads a kernel may actually run on: [`num_threads`] bounded by the pool.
pub fn usable_threads() -> usize {
    num_threads().min(rayon::current_num_threads()).max(1)
}

/// Caps the kernels' threads at `n` (`torch.set_num_threads`). Before the pool exists it is
/// built with `n` workers; afterwards the pool keeps its size and [`parallel_for`] and the GEMM
/// splits use at most `n` threads. `n == 0` restores the default.
pub fn set_num_threads(n: usize) {
    if n > 0 {
        // Fails (harmlessly) once the global pool exists.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    MAX_THREADS.store(n, Ordering::Relaxed);
}

/// Claims at or above this mean "stop": the caller raises `next` past it when it unwinds.
const STOPPED: usize = usize::MAX / 2;

/// The state shared with the spawned workers (owned through an `Arc`, so it outlives the call).
struct Team {
    /// Next index to claim (`fetch_add`); `>= n` means none is left.
    next: AtomicUsize,
    /// Claimed tasks that have finished (or panicked).
    done: AtomicUsize,
    /// Whether a task panicked on a worker.
    panicked: AtomicBool,
    /// The first worker panic's payload, resumed on the caller (an allocation failure raised in
    /// a task must reach the caller as that error, not as a generic panic).
    payload: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    n: usize,
    /// `f`, with its lifetime erased; dereferenced only for a claimed index below `n`.
    f: *const (dyn Fn(usize) + Sync),
}

// SAFETY: `f` points to a `Sync` closure, which may be called from any thread; everything else
// is atomics. See the module comment for why the pointer is live whenever it is dereferenced.
unsafe impl Send for Team {}
// SAFETY: as above.
unsafe impl Sync for Team {}

impl Team {
    /// Claims and runs tasks until none is left; returns the first panic payload, if any.
    fn work(&self) -> Option<Box<dyn std::any::Any + Send>> {
        loop {
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            if i >= self.n {
                return None;
            }
            // SAFETY: `i < n` was claimed, so the caller is still waiting (module comment).
            let r = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*self.f)(i) }));
            if r.is_err() {
                // Before `done`: the caller reads the flag once `done` says all have finished.
                self.panicked.store(true, Ordering::Release);
            }
            self.done.fetch_add(1, Ordering::AcqRel);
            if let Err(e) = r {
                return Some(e);
            }
        }
    }
}

/// Runs `f(i)` for every `i` in `0..n`, on the calling thread and the rayon workers, and returns
/// when all have finished. A panic in any task is resumed on the caller once every claimed task
/// has finished. With a one-thread pool it runs serially; inside a rayon worker it is
/// `(0..n).into_par_iter().for_each(f)` (rayon's own nesting).
pub fn parallel_for(n: usize, f: impl Fn(usize) + Sync + Send) {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads();
    let cap = num_threads();
    let helpers = if threads < 2 || cap < 2 {
        0
    } else if cap >= threads {
        threads.min(n.saturating_sub(1))
    } else {
        // A lowered cap: the caller plus `cap - 1` workers.
        (cap - 1).min(n.saturating_sub(1))
    };
    if helpers == 0 {
        (0..n).for_each(f);
        return;
    }
    if rayon::current_thread_index().is_some() {
        (0..n).into_par_iter().for_each(f);
        return;
    }
    let f: &(dyn Fn(usize) + Sync) = &f;
    // SAFETY: only the lifetime is erased; see `Team::f`.
    let f: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(f) };
    let team = Arc::new(Team {
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        panicked: AtomicBool::new(false),
        payload: Mutex::new(None),
        n,
        f,
    });
    for _ in 0..helpers {
        let t = Arc::clone(&team);
        rayon::spawn(move || {
            if let Some(e) = t.work() {
                let mut first = t.payload.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert(e);
            }
        });
    }
    let mine = team.work();
    // Stop further claims (a no-op when all were taken) and wait for the claimed ones.
    let claimed = team.next.swap(STOPPED, Ordering::AcqRel).min(n);
    let mut spins = 0u32;
    while team.done.load(Ordering::Acquire) < claimed {
        if spins < 64 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
    if let Some(e) = mine {
        panic::resume_unwind(e);
    }
    if team.panicked.load(Ordering::Acquire) {
        // The worker stores its payload just after counting its task done: wait for it.
        loop {
            if let Some(e) = team
                .payload
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
            {
                panic::resume_unwind(e);
            }
            std::thread::yield_now();
        }
    }
}

/// `(0..n).map(f).collect()` run by [`parallel_for`] (the caller works too), results in index
/// order whatever thread ran each: the reductions built on it add their partials in that order,
/// so they do not depend on scheduling.
pub fn parallel_map<T: Send + Sync>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    let slots: Vec<OnceLock<T>> = (0..n).map(|_| OnceLock::new()).collect();
    parallel_for(n, |i| {
        // Each index is claimed once, so each slot is set once.
        let _ = slots[i].set(f(i));
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .expect("invariant: parallel_for ran every index")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::parallel_for;

    /// Every index runs exactly once, for counts around the number of threads.
    #[test]
    fn runs_every_index_once() {
        for n in [0, 1, 2, 3, 7, 64, 1000] {
            let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            parallel_for(n, |i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                "n = {n}"
            );
        }
    }

    /// Borrowed state is written by every task before the call returns (the soundness claim:
    /// nothing runs after the return).
    #[test]
    fn returns_after_all_tasks() {
        let mut out = vec![0u64; 257];
        let ptr = out.as_mut_ptr() as usize;
        parallel_for(out.len(), |i| {
            std::thread::sleep(std::time::Duration::from_micros(50));
            // SAFETY: task `i` alone writes element `i`, and `out` outlives the call.
            unsafe { *(ptr as *mut u64).add(i) = i as u64 * 3 };
        });
        assert!(out.iter().enumerate().all(|(i, &v)| v == i as u64 * 3));
    }

    /// A panicking task reaches the caller, after the other claimed tasks have finished.
    #[test]
    fn a_panic_reaches_the_caller() {
        let finished = AtomicUsize::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            parallel_for(16, |i| {
                assert!(i != 5, "task 5 fails");
                finished.fetch_add(1, Ordering::SeqCst);
            })
        }));
        assert!(r.is_err());
        let after = finished.load(Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            after,
            finished.load(Ordering::SeqCst),
            "a task ran after the return"
        );
    }

    /// An error raised in a task (an allocation failure) reaches the caller as that error,
    /// whichever thread ran the task.
    #[test]
    fn a_raised_error_keeps_its_payload() {
        for bad in [0, 7, 63] {
            let r = crate::unwind::catch(
                || "parallel_for".to_string(),
                || -> crate::Result<()> {
                    parallel_for(64, |i| {
                        if i == bad {
                            crate::unwind::raise(crate::Error::OutOfMemory { nbytes: 12 });
                        }
                    });
                    Ok(())
                },
            );
            assert_eq!(
                r,
                Err(crate::Error::OutOfMemory { nbytes: 12 }),
                "task {bad}"
            );
        }
    }

    /// parallel_map returns every result in index order.
    #[test]
    fn map_keeps_index_order() {
        for n in [0, 1, 3, 64, 1000] {
            let v = super::parallel_map(n, |i| i * i);
            assert_eq!(v, (0..n).map(|i| i * i).collect::<Vec<_>>(), "n = {n}");
        }
    }

    /// Called from inside a rayon worker it nests through rayon.
    #[test]
    fn nests_inside_rayon() {
        let total = AtomicUsize::new(0);
        rayon::scope(|s| {
            s.spawn(|_| {
                parallel_for(100, |i| {
                    total.fetch_add(i, Ordering::Relaxed);
                })
            })
        });
        assert_eq!(total.load(Ordering::Relaxed), 4950);
    }
}

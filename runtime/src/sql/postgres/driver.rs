//! The runtime of a PostgreSQL handle's own that drives its connections, so the blocking
//! APIs work from any thread.

use std::future::Future;

use crate::sql::backend::ExecError;

/// A runtime of the handle's own that drives the pool's connections.
pub(crate) struct Driver {
    pub(crate) runtime: Option<tokio::runtime::Runtime>,
}

impl Driver {
    pub(crate) fn new() -> std::io::Result<Driver> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("toolforge-postgres")
            .enable_all()
            .build()?;
        Ok(Driver {
            runtime: Some(runtime),
        })
    }

    /// Starts `future` on the driver without waiting for it.
    pub(crate) fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        if let Some(runtime) = &self.runtime {
            runtime.spawn(future);
        }
    }

    /// Runs `future` on the driver and waits for it (blocking the current thread, which must
    /// not be one of the driver's own).
    pub(crate) fn block<F>(&self, future: F) -> Result<F::Output, ExecError>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let runtime = self.runtime.as_ref().ok_or(ExecError::Stopped)?;
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = sender.send(future.await);
        });
        receiver.recv().map_err(|_| ExecError::Stopped)
    }

    /// A handle to the driver's runtime (none once it has stopped).
    pub(crate) fn handle(&self) -> Option<tokio::runtime::Handle> {
        self.runtime
            .as_ref()
            .map(|runtime| runtime.handle().clone())
    }

    /// Starts `future` on the driver; its output is waited for with [`Pending::wait`].
    pub(crate) fn start<F>(&self, future: F) -> Pending<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        if let Some(runtime) = &self.runtime {
            runtime.spawn(async move {
                let _ = sender.send(future.await);
            });
        }
        Pending { receiver }
    }
}

/// `future`, polled with the driver's runtime as the current one: the timers and tasks it
/// starts (the pool's waits for a connection) are the driver's, so it runs on any runtime,
/// even one built without timers, and its answer still wakes the caller's task there.
pub(crate) fn in_driver_context<F: Future>(
    handle: Option<tokio::runtime::Handle>,
    future: F,
) -> impl Future<Output = F::Output> {
    let mut future = Box::pin(future);
    std::future::poll_fn(move |cx| {
        let _entered = handle.as_ref().map(tokio::runtime::Handle::enter);
        future.as_mut().poll(cx)
    })
}

/// Work started on the driver and not waited for yet.
pub(crate) struct Pending<T> {
    pub(crate) receiver: std::sync::mpsc::Receiver<T>,
}

impl<T> Pending<T> {
    /// Waits for the work's output.
    pub(crate) fn wait(self) -> Result<T, ExecError> {
        self.receiver.recv().map_err(|_| ExecError::Stopped)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // Dropping a runtime blocks, which tokio refuses inside another runtime.
            runtime.shutdown_background();
        }
    }
}

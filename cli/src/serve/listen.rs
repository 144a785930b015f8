//! The accept loop: HTTP/1.1 connections on hyper with a time limit for each request head and
//! for idle connections, a cap on connections at once, and a clean stop on Ctrl-C.

use super::answer::State;
use super::Limits;
use crate::error::CliError;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::io::Write;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Binds `addr`, prints where it listens, and serves until interrupted.
pub async fn serve(addr: &str, state: Arc<State>, limits: Limits) -> Result<(), CliError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::input(format!("cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| CliError::other(format!("cannot read the bound address: {e}")))?;
    println!(
        "retro serve: listening on http://{local}/ (tables from {}; Ctrl-C stops)",
        state.dir.display()
    );
    let _ = std::io::stdout().flush();
    let router = super::routes::router(state);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let stop = tokio::signal::ctrl_c();
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            _ = &mut stop => return Ok(()),
        };
        let (stream, _) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(e) => {
                    // Out of file descriptors, a connection reset before accept: wait, go on.
                    eprintln!("retro serve: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => return Ok(()),
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.timeout)
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(stream), service);
            // Errors here are the client's (a reset, a malformed head): nothing to report.
            let _ = conn.await;
            drop(permit);
        });
    }
}

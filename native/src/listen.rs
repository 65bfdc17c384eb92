//! Listening sockets for a server on every core (docs/architecture.md, "Every core"):
//! each thread that serves HTTP listens on a socket of its own bound to the same
//! address with `SO_REUSEPORT`, so the kernel spreads new connections over the threads
//! (by a hash of each connection's addresses) instead of handing a burst of them to
//! whichever thread wakes first. Node cannot set the option itself (before Node 22).

use std::net::{SocketAddr, ToSocketAddrs};
use std::os::fd::IntoRawFd;

use napi_derive::napi;
use socket2::{Domain, Socket, Type};

/// Errno values answered when the host does not resolve to an address.
const EADDRNOTAVAIL: i32 = 99;

/// A listening TCP socket on `host`:`port` (0: a free port) with `SO_REUSEADDR` and
/// `SO_REUSEPORT`, non-blocking and close-on-exec: its descriptor, which the caller's
/// server then owns; or the errno negated when it cannot be made (`-98`: the address is
/// in use, `-13`: not permitted, `-99`: not an address of this machine).
#[napi]
pub fn listen_socket(host: String, port: u32, backlog: i32) -> i32 {
    let Some(address) = resolve(&host, port) else { return -EADDRNOTAVAIL };
    match listen(address, backlog) {
        Ok(socket) => socket.into_raw_fd(),
        Err(err) => -err.raw_os_error().unwrap_or(EADDRNOTAVAIL),
    }
}

fn resolve(host: &str, port: u32) -> Option<SocketAddr> {
    let port = u16::try_from(port).ok()?;
    (host, port).to_socket_addrs().ok()?.next()
}

fn listen(address: SocketAddr, backlog: i32) -> std::io::Result<Socket> {
    let socket = Socket::new(Domain::for_address(address), Type::STREAM.nonblocking().cloexec(), None)?;
    if address.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.bind(&address.into())?;
    socket.listen(backlog)?;
    Ok(socket)
}

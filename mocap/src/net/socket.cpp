#include "checks.hpp"
#include "net/socket.hpp"

#include <odemocap/error.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace odemocap::net {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw MocapError(what + ": " + std::strerror(errno));
}

sockaddr_in to_sockaddr(const Endpoint& e) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = e.address;
  a.sin_port = htons(e.port);
  return a;
}

Endpoint from_sockaddr(const sockaddr_in& a) {
  return {a.sin_addr.s_addr, ntohs(a.sin_port)};
}

int local_port_of(int fd) {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0) {
    fail("getsockname");
  }
  return ntohs(a.sin_port);
}

int poll_timeout_ms(double timeout) {
  if (!(timeout > 0.0)) {
    return 0;
  }
  return static_cast<int>(std::ceil(std::min(timeout, 3600.0) * 1000.0));
}

Fd bound_socket(int type, int port, bool reuse) {
  Fd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    fail("socket");
  }
  const int one = 1;
  if (reuse && setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) {
    fail("setsockopt SO_REUSEADDR");
  }
  if (port < 0 || port > 65535) {
    throw MocapError("port " + std::to_string(port) + " is outside 0-65535");
  }
  sockaddr_in a = to_sockaddr({htonl(INADDR_ANY), static_cast<std::uint16_t>(port)});
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    fail("bind to port " + std::to_string(port));
  }
  return fd;
}

} // namespace

std::string Endpoint::str() const {
  char text[INET_ADDRSTRLEN] = {};
  in_addr a{};
  a.s_addr = address;
  inet_ntop(AF_INET, &a, text, sizeof text);
  return std::string(text) + ":" + std::to_string(port);
}

Endpoint resolve(const std::string& host, int port) {
  if (port < 0 || port > 65535) {
    throw MocapError("port " + std::to_string(port) + " is outside 0-65535");
  }
  Endpoint e;
  e.port = static_cast<std::uint16_t>(port);
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) == 1) {
    e.address = a.s_addr;
    return e;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw MocapError("cannot resolve host '" + host + "': " + gai_strerror(rc));
  }
  e.address = reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr.s_addr;
  freeaddrinfo(found);
  return e;
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

std::uint32_t ipv4_address(const std::string& text, const std::string& what) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) {
    throw MocapError(what + " must be an IPv4 address (a.b.c.d), got '" + text + "'");
  }
  return a.s_addr;
}

bool is_loopback(std::uint32_t address) {
  return (ntohl(address) >> 24) == 127;
}

std::uint32_t route_source(const Endpoint& to) {
  // A datagram socket's connect() sends nothing: it picks the route, whose source address
  // getsockname() then gives.
  const Fd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    fail("socket");
  }
  const sockaddr_in a = to_sockaddr(to);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    return 0;
  }
  sockaddr_in local{};
  socklen_t n = sizeof local;
  if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &n) != 0) {
    fail("getsockname");
  }
  return local.sin_addr.s_addr;
}

bool wait_readable(int fd, double timeout) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const int rc = ::poll(&p, 1, poll_timeout_ms(timeout));
    if (rc >= 0) {
      return rc > 0;
    }
    if (errno != EINTR) {
      fail("poll");
    }
  }
}

UdpSocket::UdpSocket(int port, bool reuse) : fd_(bound_socket(SOCK_DGRAM, port, reuse)) {}

int UdpSocket::local_port() const {
  return local_port_of(fd_.get());
}

void UdpSocket::join_multicast(const std::string& group, const std::string& interface_address) {
  ip_mreq m{};
  if (inet_pton(AF_INET, group.c_str(), &m.imr_multiaddr) != 1) {
    throw MocapError("multicast group '" + group + "' is not an IPv4 address");
  }
  m.imr_interface.s_addr = interface_address.empty()
                               ? htonl(INADDR_ANY)
                               : ipv4_address(interface_address, "the multicast interface");
  if (setsockopt(fd_.get(), IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) != 0) {
    fail("joining multicast group " + group +
         (interface_address.empty() ? std::string() : " on interface " + interface_address));
  }
}

void UdpSocket::set_multicast_interface(std::uint32_t address) {
  in_addr a{};
  a.s_addr = address;
  if (setsockopt(fd_.get(), IPPROTO_IP, IP_MULTICAST_IF, &a, sizeof a) != 0) {
    fail("setsockopt IP_MULTICAST_IF " + Endpoint{address, 0}.str());
  }
}

void UdpSocket::set_multicast_loopback(bool on) {
  const unsigned char v = on ? 1 : 0;
  if (setsockopt(fd_.get(), IPPROTO_IP, IP_MULTICAST_LOOP, &v, sizeof v) != 0) {
    fail("setsockopt IP_MULTICAST_LOOP");
  }
}

void UdpSocket::send_to(const std::uint8_t* data, std::size_t size, const Endpoint& to) {
  const sockaddr_in a = to_sockaddr(to);
  if (::sendto(fd_.get(), data, size, 0, reinterpret_cast<const sockaddr*>(&a), sizeof a) < 0) {
    fail("sending " + std::to_string(size) + " bytes to " + to.str());
  }
}

std::size_t UdpSocket::receive(std::uint8_t* buffer, std::size_t capacity, double timeout,
                               Endpoint* from) {
  if (!wait_readable(fd_.get(), timeout)) {
    return 0;
  }
  sockaddr_in a{};
  socklen_t n = sizeof a;
  const ssize_t got =
      ::recvfrom(fd_.get(), buffer, capacity, 0, reinterpret_cast<sockaddr*>(&a), &n);
  if (got < 0) {
    if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED) {
      return 0; // ECONNREFUSED: an earlier datagram of ours found no listener
    }
    fail("recvfrom");
  }
  if (from != nullptr) {
    *from = from_sockaddr(a);
  }
  return static_cast<std::size_t>(got);
}

TcpStream TcpStream::connect(const Endpoint& to, double timeout) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) {
    fail("socket");
  }
  const sockaddr_in a = to_sockaddr(to);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS) {
      fail("connecting to " + to.str());
    }
    pollfd p{fd.get(), POLLOUT, 0};
    if (::poll(&p, 1, poll_timeout_ms(timeout)) <= 0) {
      throw MocapError("connecting to " + to.str() + ": no answer within " +
                       detail::describe(timeout) + " s");
    }
    int err = 0;
    socklen_t n = sizeof err;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &n);
    if (err != 0) {
      errno = err;
      fail("connecting to " + to.str());
    }
  }
  const int flags = fcntl(fd.get(), F_GETFL);
  fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  const int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return TcpStream(std::move(fd));
}

Endpoint TcpStream::peer() const {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  if (getpeername(fd_.get(), reinterpret_cast<sockaddr*>(&a), &n) != 0) {
    fail("getpeername");
  }
  return from_sockaddr(a);
}

void TcpStream::send_all(const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd_.get(), data, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail("sending on a TCP connection");
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

bool TcpStream::receive_exact(std::uint8_t* data, std::size_t size, double timeout) {
  constexpr double k_stall = 2.0; // s a peer may pause inside one message
  std::size_t got = 0;
  while (got < size) {
    if (!wait_readable(fd_.get(), got == 0 ? timeout : k_stall)) {
      if (got == 0) {
        return false;
      }
      throw MocapError("TCP peer stalled inside a message (" + std::to_string(got) + " of " +
                       std::to_string(size) + " bytes)");
    }
    const ssize_t n = ::recv(fd_.get(), data + got, size - got, 0);
    if (n == 0) {
      throw MocapError("TCP peer closed the connection");
    }
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail("receiving on a TCP connection");
    }
    got += static_cast<std::size_t>(n);
  }
  return true;
}

TcpListener::TcpListener(int port) : fd_(bound_socket(SOCK_STREAM, port, true)) {
  if (::listen(fd_.get(), 4) != 0) {
    fail("listen on port " + std::to_string(port));
  }
}

int TcpListener::local_port() const {
  return local_port_of(fd_.get());
}

TcpStream TcpListener::accept(double timeout) {
  if (!wait_readable(fd_.get(), timeout)) {
    return TcpStream();
  }
  Fd fd(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd.valid()) {
    fail("accept");
  }
  const int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return TcpStream(std::move(fd));
}

} // namespace odemocap::net

package referee

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	refereev1 "referee/clients/go/gen/referee/v1"
)

// A stand-in server: ListGames answers one game whose description has the
// given size, so that the client's transport and limits are tested without
// the referee.
type bigGames struct {
	refereev1.UnimplementedRefereeServiceServer
	descriptionBytes int
}

func (b bigGames) ListGames(ctx context.Context, _ *refereev1.ListGamesRequest) (*refereev1.ListGamesResponse, error) {
	game := &refereev1.GameInfo{Id: "big", Description: strings.Repeat("x", b.descriptionBytes)}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		game.Title = strings.Join(md.Get("authorization"), ",")
	}
	return &refereev1.ListGamesResponse{Games: []*refereev1.GameInfo{game}}, nil
}

func serveStandIn(t *testing.T, server *grpc.Server, service bigGames) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refereev1.RegisterRefereeServiceServer(server, service)
	go server.Serve(lis)
	t.Cleanup(server.Stop)
	return lis.Addr().String()
}

// selfSigned is a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "referee-test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// docs/operations.md: the service port may speak TLS; the client must be able to.
func TestDialWithTransportCredentialsSpeaksTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	server := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})))
	address := serveStandIn(t, server, bigGames{descriptionBytes: 10})
	c, err := Dial(address, Options{
		MaxAttempts:          1,
		TransportCredentials: credentials.NewTLS(&tls.Config{RootCAs: pool}),
		DialOptions:          []grpc.DialOption{BearerToken("a-token-of-the-tests")},
	})
	if err != nil {
		t.Fatalf("Dial with TLS: %v", err)
	}
	defer c.Close()
	games, err := c.ListGames(context.Background())
	if err != nil || len(games) != 1 {
		t.Fatalf("ListGames over TLS: %v", err)
	}
	if games[0].GetTitle() != "Bearer a-token-of-the-tests" {
		t.Fatalf("the token sent: %q", games[0].GetTitle())
	}
}

// The server answers up to --max-message-bytes (16 MiB by default); gRPC's
// client default of 4 MiB must not refuse what the server sends.
func TestAnswersOverGrpcs4MiBDefaultAreReceived(t *testing.T) {
	address := serveStandIn(t, grpc.NewServer(), bigGames{descriptionBytes: 5 << 20})
	c, err := Dial(address, Options{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	games, err := c.ListGames(context.Background())
	if err != nil {
		t.Fatalf("a 5 MiB answer: %v", err)
	}
	if len(games[0].GetDescription()) != 5<<20 {
		t.Fatal("the answer was cut")
	}
}

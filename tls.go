package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// selfSignedName is the file --tls-self-signed writes its certificate to,
// in the directory of --db-path.
const selfSignedName = "ddblocal-cert.pem"

// tlsFlags are the flags of HTTPS.
type tlsFlags struct {
	cert, key  string
	selfSigned bool
}

// tlsConfig returns the TLS configuration --tls-cert/--tls-key or
// --tls-self-signed (f) ask for, or nil for plain HTTP. A self-signed
// certificate (for localhost, 127.0.0.1, ::1 and --host) is generated
// afresh and its PEM written to dir, where SDKs can be told to trust it;
// the path is logged. HTTP/2 and HTTP/1.1 are both offered.
func tlsConfig(f tlsFlags, host, dir string, log *slog.Logger) (*tls.Config, error) {
	var cert tls.Certificate
	var err error
	switch {
	case f.selfSigned && (f.cert != "" || f.key != ""):
		return nil, errors.New("--tls-self-signed and --tls-cert/--tls-key exclude each other")
	case f.selfSigned:
		path, err := filepath.Abs(filepath.Join(dir, selfSignedName))
		if err != nil {
			return nil, err
		}
		if cert, err = selfSigned(host, path); err != nil {
			return nil, err
		}
		log.Info("wrote a self-signed TLS certificate; trust it with AWS_CA_BUNDLE (SDKs) or --ca-bundle (AWS CLI)", "cert", path)
	case f.cert != "" && f.key != "":
		if cert, err = tls.LoadX509KeyPair(f.cert, f.key); err != nil {
			return nil, err
		}
	case f.cert != "" || f.key != "":
		return nil, errors.New("--tls-cert and --tls-key go together")
	default:
		return nil, nil
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"}}, nil
}

// selfSigned generates an ECDSA P-256 certificate valid for a year for
// localhost, the loopback addresses and host (if it names one), and
// writes it, PEM encoded, to path.
func selfSigned(host, path string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"ddblocal"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // so that it can be its own CA bundle
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	} else if host != "" && ip == nil && host != "localhost" {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(path, certPEM, 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

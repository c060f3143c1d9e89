package sdk

import "errors"

var errHost = errors.New("sdk: host refused the request")

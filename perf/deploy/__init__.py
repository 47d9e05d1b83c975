"""A deployment bundle of the chosen variant: its model folder and Kubernetes manifests."""

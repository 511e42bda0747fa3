"""Conjoint policy optimisers (issue 8): average-case closed form and gradient, delta method."""

"""What the numbers say: trial statistics and knees, the recommendation, fair pairs, the Pareto frontier, main effects, serving efficiency, run comparison."""
